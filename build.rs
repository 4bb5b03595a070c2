//! The embedded catalog, pre-parsed: each TOML file of `catalog/` as JSON in `OUT_DIR`, which
//! the program reads in a fraction of the time the TOML parser takes (half of a `plan`'s run
//! was parsing the same three files every time). The TOML stays the source: the program
//! falls back to it, with its line-and-column messages, when a file does not convert.

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for name in ["models", "gpus", "offers"] {
        let path = format!("catalog/{name}.toml");
        println!("cargo::rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        // An empty file tells the program to read the TOML itself and report the error there.
        let json = toml::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| serde_json::to_string(&v).ok())
            .unwrap_or_default();
        std::fs::write(out.join(format!("{name}.json")), json).expect("OUT_DIR is writable");
    }
}
