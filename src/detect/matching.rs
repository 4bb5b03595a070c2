//! Which catalog card a name a tool printed is ("NVIDIA H100 80GB HBM3" → `h100-sxm`), by
//! the words that tell the cards apart. Apart from the parsers: it needs the catalog.

use crate::catalog::Catalog;

/// The catalog card a reported name is, by the words that tell the cards apart (most
/// specific first: "H100 NVL" before "H100", "A10G" before "A10").
pub fn match_card(name: &str, total_bytes: u64, catalog: &Catalog) -> Option<String> {
    let n = format!(" {} ", name.to_lowercase().replace(['-', '_', '/'], " "));
    let has = |w: &str| n.contains(&format!(" {w} ")) || n.contains(w) && w.contains(' ');
    let gb = total_bytes as f64 / 1e9;
    // A vGPU guest's card ("GRID A100-4C"): a slice of a card, never the card itself; the
    // catalog holds the 4 GB A100 profile the seeds rent, others plan on memory alone.
    if has("grid") {
        let id = "a100-vgpu-1-20";
        return (has("a100") && gb < 5.0 && catalog.gpu_index(id).is_some()).then(|| id.to_string());
    }
    let id = if has("laptop") {
        // Before every desktop branch: a laptop part has its own chip, memory and power, so
        // "RTX 4070 Laptop GPU" is not the desktop RTX 4070, and a laptop part without an
        // entry (RTX 4050, RTX PRO 4000 Blackwell Laptop) is no card rather than a wrong one.
        laptop_card(&has, gb)?
    } else if has("h100") {
        if has("nvl") {
            "h100-nvl"
        } else if has("pcie") {
            "h100-pcie"
        } else {
            "h100-sxm"
        }
    } else if has("h200") {
        if has("nvl") { "h200-nvl" } else { "h200-sxm" }
    } else if has("h800") {
        "h800-sxm"
    } else if has("h20") {
        "h20"
    } else if has("gb200") {
        "gb200"
    } else if has("b200") {
        "b200"
    } else if has("a100") {
        match (gb > 60.0, has("pcie")) {
            (true, true) => "a100-80gb-pcie",
            (true, false) => "a100-sxm",
            (false, _) => "a100-40gb-pcie",
        }
    } else if has("a800") && has("pcie") && gb > 60.0 {
        "a800-80gb-pcie"
    } else if has("v100") {
        // Only the PCIe 16GB and SXM2 32GB are cards here; the memory tells them apart.
        if gb > 20.0 {
            "v100-sxm2-32gb"
        } else {
            "v100-pcie-16gb"
        }
    } else if has("p100") {
        "tesla-p100-16gb"
    } else if has("p40") {
        "tesla-p40"
    } else if has("a16") {
        "a16"
    } else if has("a2") {
        "a2"
    } else if has("a10g") {
        "a10g"
    } else if has("a10") {
        "a10"
    } else if has("a40") {
        "a40"
    } else if has("l40s") {
        "l40s"
    } else if has("l40") {
        "l40"
    } else if has("l20") {
        "l20"
    } else if has("l4") {
        "l4"
    } else if has("t4") {
        "t4"
    } else if has("rtx pro 6000") {
        "rtx-pro-6000"
    } else if has("rtx pro 5000") && gb < 60.0 {
        // The 72 GB RTX PRO 5000 is another card, not in the catalog.
        "rtx-pro-5000"
    } else if has("rtx pro 4500") {
        "rtx-pro-4500"
    } else if has("rtx pro 4000") {
        "rtx-pro-4000"
    } else if has("rtx 4500 ada") {
        "rtx-4500-ada"
    } else if has("rtx 6000 ada") {
        "rtx-6000-ada"
    } else if has("a6000") {
        "rtx-a6000"
    } else if has("rtx 5000 ada") {
        "rtx-5000-ada"
    } else if has("rtx 4000 ada") {
        "rtx-4000-ada"
    } else if has("rtx 2000 ada") {
        "rtx-2000-ada"
    } else if has("a5500") {
        "rtx-a5500"
    } else if has("a4500") {
        "rtx-a4500"
    } else if has("a4000") {
        "rtx-a4000"
    } else if has("a5000") {
        "rtx-a5000"
    } else if has("5090") {
        "rtx-5090"
    } else if has("5080") {
        "rtx-5080"
    } else if has("5070 ti") {
        "rtx-5070-ti"
    } else if has("5070") {
        "rtx-5070"
    } else if has("5060 ti") && gb > 12.0 {
        "rtx-5060-ti-16gb"
    } else if has("4090 d") || has("4090d") {
        "rtx-4090d"
    } else if has("4090") {
        // The modified 48 GB boards print the plain RTX 4090 name; only the memory differs.
        if gb > 30.0 { "rtx-4090-48gb" } else { "rtx-4090" }
    } else if has("4080 super") {
        "rtx-4080-super"
    } else if has("4080") {
        "rtx-4080"
    } else if has("4070 ti super") {
        "rtx-4070-ti-super"
    } else if has("4070 ti") {
        "rtx-4070-ti"
    } else if has("4070 super") {
        "rtx-4070-super"
    } else if has("4070") {
        "rtx-4070"
    } else if has("4060 ti") {
        if gb > 12.0 {
            "rtx-4060-ti-16gb"
        } else {
            "rtx-4060-ti-8gb"
        }
    } else if has("4060") {
        "rtx-4060"
    } else if has("3090 ti") {
        "rtx-3090-ti"
    } else if has("3090") && !has("ti") {
        "rtx-3090"
    } else if has("3080 ti") {
        "rtx-3080-ti"
    } else if has("3080") {
        // Both 3080s print the same name; only the memory tells them apart.
        if gb > 11.5 {
            "rtx-3080-12gb"
        } else {
            "rtx-3080-10gb"
        }
    } else if has("3070") && !has("ti") {
        "rtx-3070"
    } else if has("3060 ti") {
        "rtx-3060-ti"
    } else if has("3060") && gb > 10.0 {
        "rtx-3060-12gb"
    } else if has("2080 ti") {
        "rtx-2080-ti"
    } else if has("2080 super") {
        "rtx-2080-super"
    } else if has("mi355x") {
        "mi355x"
    } else if has("mi325x") {
        "mi325x"
    } else if has("mi300x") {
        "mi300x"
    } else if has("mi250x") {
        // amd-smi's market name "AMD Instinct MI250X / MI250" lands here too: the two share
        // memory and bandwidth, so the planner's fit is the same either way.
        "mi250x"
    } else if has("mi250") {
        "mi250"
    } else if has("mi210") {
        "mi210"
    } else if n.contains("mi100") {
        // rocm-smi names it "Arcturus GL-XL [Instinct MI100]".
        "mi100"
    } else if has("w7900") {
        "radeon-pro-w7900"
    } else if has("w7800") && gb < 40.0 {
        // The 48 GB W7800 (2024) is another board, with faster memory: not this entry.
        "radeon-pro-w7800"
    } else if has("7900 gre") {
        "rx-7900-gre"
    } else if has("7900 xt") {
        // Older rocm-smi prints the PCI name "Navi 31 [Radeon RX 7900 XT/7900 XTX]" for
        // both cards; the memory tells them apart.
        if gb > 22.0 { "rx-7900-xtx" } else { "rx-7900-xt" }
    } else if has("7800 xt") {
        "rx-7800-xt"
    } else if has("7600 xt") && gb > 12.0 {
        "rx-7600-xt"
    } else if has("9070 xt") {
        "rx-9070-xt"
    } else if has("9070") {
        "rx-9070"
    } else if has("6900 xt") {
        "rx-6900-xt"
    } else if has("6800") && !has("xt") {
        "rx-6800"
    } else if has("a770") && gb > 12.0 {
        // xpu-smi and sycl-ls: "Intel(R) Arc(TM) A770 Graphics" (the 8 GB card is not here).
        "arc-a770-16gb"
    } else if has("a750") {
        "arc-a750"
    } else if has("b580") {
        "arc-b580"
    } else if has("pro b60") {
        "arc-pro-b60"
    } else {
        match match_integrated(&n, gb) {
            Some(id) => id,
            None => return match_apple(&n, total_bytes as f64, catalog),
        }
    };
    catalog.gpu_index(id).map(|_| id.to_string())
}

/// An Apple chip by the name `sysctl machdep.cpu.brand_string` (or Metal) prints, "Apple M4
/// Pro", and the GPU's share of its memory: of the catalog's entries for that chip
/// (`m4-pro-24gb`, `m4-pro-48gb`, ...), the one whose Metal share is nearest. `n` is the name
/// lower-cased and padded with spaces, as `match_card` makes it.
fn match_apple(n: &str, total_bytes: f64, catalog: &Catalog) -> Option<String> {
    let mut words = n.split_whitespace().skip_while(|w| *w != "apple").skip(1);
    let chip = words
        .next()
        .filter(|w| w.len() == 2 && w.starts_with('m') && w[1..].bytes().all(|b| b.is_ascii_digit()))?;
    let prefix = match words.next() {
        Some(tier @ ("pro" | "max" | "ultra")) => format!("{chip}-{tier}-"),
        _ => format!("{chip}-"),
    };
    let (id, distance) = catalog
        .gpus
        .iter()
        .filter(|g| {
            // "m4-" must not take "m4-pro-48gb": only the size may follow the prefix.
            g.id.strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix("gb"))
                .is_some_and(|size| !size.is_empty() && size.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|g| Some((&g.id, (g.memory_visible_bytes? / total_bytes).ln().abs())))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    // Older macOS gives up to a sixth less than the catalog's macOS 26 share; farther off is
    // a size the catalog does not have.
    (distance < 1.25f64.ln()).then(|| id.clone())
}

/// The laptop entry a "… Laptop GPU" name is, by its number (and memory where two parts share
/// a name); `None` for a laptop part the catalog lacks. "Ti" laptop parts (3070 Ti, 3080 Ti)
/// are other chips than the plain ones.
fn laptop_card(has: &impl Fn(&str) -> bool, gb: f64) -> Option<&'static str> {
    Some(if has("5090") {
        "rtx-5090-laptop"
    } else if has("5080") {
        "rtx-5080-laptop"
    } else if has("5070 ti") {
        "rtx-5070-ti-laptop"
    } else if has("4090") {
        "rtx-4090-laptop"
    } else if has("4080") {
        "rtx-4080-laptop"
    } else if has("4070") {
        "rtx-4070-laptop"
    } else if has("4060") {
        "rtx-4060-laptop"
    } else if has("3080") && !has("ti") {
        if gb > 12.0 {
            "rtx-3080-laptop-16gb"
        } else {
            "rtx-3080-laptop-8gb"
        }
    } else if has("3070") && !has("ti") {
        "rtx-3070-laptop"
    } else if has("3060") {
        "rtx-3060-laptop"
    } else {
        return None;
    })
}

/// Integrated and unified-memory GPUs that are not Apple's, from `n` (the name lowercased and
/// padded as `match_card` makes it) and the tool's total in GB.
///
/// rocm-smi's total on an APU is the BIOS carve-out (512 MiB), not the machine's RAM, so the
/// AMD chips match by name alone; what a match brings (bandwidth, compute) is the same at
/// every memory size, and a catalog entry names the commonest size. Windows names Lunar Lake
/// GPUs with the half of RAM it grants them ("140V GPU (16GB)" on a 32 GB machine), which
/// tells the machine apart. GB10 and Jetson print no memory in nvidia-smi; Orin Nano, NX
/// and AGX share the name "Orin (nvgpu)", so only a total above 40 GB is the 64 GB AGX.
fn match_integrated(n: &str, gb: f64) -> Option<&'static str> {
    let has = |w: &str| n.contains(&format!(" {w} ")) || n.contains(w) && w.contains(' ');
    let id = if has("8060s") {
        // The 64 and 128 GB machines print the same name: the pool tells them apart once
        // detection has added the GTT to the carve-out (`unified_pools`; the 64 GB machine's
        // default pool is about 35 GB, the 128 GB one's about 69); a carve-out alone is the
        // larger machine's name.
        if (1.0..50.0).contains(&gb) {
            "strix-halo-64gb"
        } else {
            "strix-halo-128gb"
        }
    } else if has("890m") {
        "radeon-890m-32gb"
    } else if has("880m") {
        "radeon-880m-32gb"
    } else if has("780m") {
        "radeon-780m-32gb"
    } else if has("140v") && n.contains("(16gb)") {
        "arc-140v-32gb"
    } else if has("130v") && n.contains("(8gb)") {
        "arc-130v-16gb"
    } else if (has("iris(r) xe") || has("iris xe")) && !has("max") && (20.0..40.0).contains(&gb) {
        // Iris Xe MAX is a discrete card; Level Zero gives the iGPU most of the RAM.
        "iris-xe-32gb"
    } else if has("gb10") {
        "gb10-128gb"
    } else if has("orin") && gb > 40.0 {
        "jetson-agx-orin-64gb"
    } else {
        return None;
    };
    Some(id)
}
