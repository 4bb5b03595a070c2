//! llama.cpp's and Ollama's launch commands: `llama-server`/`llama-cli` flags, and `ollama
//! run` with the `OLLAMA_*` variables the server reads.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Reader, args_of};
use crate::engine::basics::choice::Choice;

impl Reader {
    pub(super) fn llama_cpp(&mut self, args: &[String]) -> Result<(), String> {
        self.set("framework", "llama.cpp");
        let mut cells = None;
        let mut slots = None;
        let (mut ctk, mut ctv) = (None, None);
        let mut model = false;
        for a in args_of(
            args,
            &[
                "-fa",
                "--flash-attn",
                "--cpu-moe",
                "-cmoe",
                "--mlock",
                "--no-mmap",
                "--jinja",
                "--cont-batching",
                "-cb",
                "--no-webui",
                "--verbose",
                "-v",
                "--embedding",
                "--metrics",
            ],
        ) {
            let v = a.value.clone().unwrap_or_default();
            match a.flag {
                "-m" | "--model" => {
                    self.model(&v, true);
                    model = true;
                }
                "-hf" | "-hfr" | "--hf-repo" => {
                    // `org/repo-GGUF:Q4_K_M`: the quant after the colon.
                    let (repo, quant) = v.split_once(':').unwrap_or((&v, ""));
                    if !self.gguf_weights(quant) && quant.is_empty() {
                        self.note(format!(
                            "-hf {repo}: no quantization tag; planned at the model's published format"
                        ));
                    }
                    let name = repo.rsplit('/').next().unwrap_or(repo);
                    self.set("model", name);
                    model = true;
                }
                "-c" | "--ctx-size" => {
                    cells = Some(Self::number(&a, "llama.cpp")? as u64);
                    if cells == Some(0) {
                        self.note("-c 0: llama.cpp takes the model's training length; planned at the context --context gives (or the runtime's own)".into());
                    }
                }
                "--mmproj" | "-mm" => {
                    if Path::new(&v).exists() {
                        self.set("mmproj", &v);
                    } else {
                        self.note(format!("--mmproj {v}: the vision encoder's file is not here; --images plans the catalog's encoder"));
                    }
                }
                "-np" | "--parallel" => slots = Some(Self::number(&a, "llama.cpp")? as u64),
                "-ngl" | "--gpu-layers" | "--n-gpu-layers" => match v.as_str() {
                    "all" | "auto" => {}
                    _ => {
                        let n = Self::number(&a, "llama.cpp")? as u64;
                        // 99 or 999: every layer, as people write it.
                        if n < 99 {
                            self.set("gpu-layers", n);
                        }
                    }
                },
                "-sm" | "--split-mode" => match v.as_str() {
                    "row" => self.set("split", "tensor"),
                    "layer" => self.set("split", "layer"),
                    "none" => self.note("-sm none: one card; planned on --gpu's cards".into()),
                    other => {
                        return Err(format!(
                            "--cmd: llama.cpp's -sm takes layer, row or none, got '{}'",
                            crate::text::clean_prefix(other, 20)
                        ));
                    }
                },
                "-ts" | "--tensor-split" => {
                    let parts = v.split([',', '/']).filter(|p| !p.trim().is_empty()).count();
                    self.note(format!("-ts {v}: {parts} cards; vramfit splits by each card's free memory as llama.cpp's default does"));
                    if parts > 1 {
                        self.set("cards", parts);
                    }
                }
                "-ctk" | "--cache-type-k" => ctk = Some(v),
                "-ctv" | "--cache-type-v" => ctv = Some(v),
                "-fa" | "--flash-attn" => {
                    let on = !matches!(v.as_str(), "off" | "0");
                    self.set("flash-attention", if on { "on" } else { "off" });
                }
                "-ub" | "--ubatch-size" => self.set("ubatch", Self::number(&a, "llama.cpp")? as u64),
                "--n-cpu-moe" | "-ncmoe" => self.set("n-cpu-moe", Self::number(&a, "llama.cpp")? as u64),
                "--cpu-moe" | "-cmoe" => self.set("n-cpu-moe", 10_000),
                "-ot" | "--override-tensor" => {
                    if v.contains("exps")
                        && v.to_ascii_lowercase().ends_with("=cpu")
                        && !v.contains('[')
                        && !v.contains('(')
                    {
                        self.set("n-cpu-moe", 10_000);
                    } else {
                        self.note(format!("-ot {v}: a tensor override vramfit does not read (it reads --n-cpu-moe and -ot exps=CPU)"));
                    }
                }
                "-md" | "--model-draft" => self.note(format!("-md {v}: a draft model is not planned")),
                "" => self.note(format!("'{v}': a word llama.cpp would not take here")),
                flag => self.note(format!(
                    "{flag}{}: not modelled (no memory it changes that vramfit counts)",
                    a.value.map(|v| format!(" {v}")).unwrap_or_default()
                )),
            }
        }
        if !model {
            return Err("--cmd: the llama.cpp command names no model (-m FILE or -hf REPO)".into());
        }
        let slots = slots.unwrap_or(1).max(1);
        if slots > 1 {
            self.set("batch", slots);
        }
        if let Some(c) = cells.filter(|c| *c > 0) {
            // -c is the cells of every slot together.
            self.set("context", (c / slots).max(1));
        }
        match (ctk.as_deref(), ctv.as_deref()) {
            (None, None) => {}
            (k, v) => {
                let k = k.unwrap_or("f16");
                let v = v.unwrap_or("f16");
                use crate::engine::KvPrecision;
                match (
                    KvPrecision::from_llama_cpp_type(k),
                    KvPrecision::from_llama_cpp_type(v),
                ) {
                    (Some(a), Some(b)) if a == b => {
                        if a != KvPrecision::Fp16 {
                            self.set("kv", a.id());
                        }
                    }
                    (Some(a), Some(b)) => {
                        // One format for both: the wider one, so the plan never undercounts.
                        let wider = if a.bytes_per_element() >= b.bytes_per_element() {
                            a
                        } else {
                            b
                        };
                        self.set("kv", wider.id());
                        self.note(format!(
                            "-ctk {k} -ctv {v}: vramfit plans one format for both, {}",
                            wider.id()
                        ));
                    }
                    _ => {
                        return Err(format!(
                            "--cmd: a cache type vramfit has no size for (-ctk {k} -ctv {v}); it knows f16, bf16, q8_0, q4_0"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn ollama(
        &mut self,
        args: &[String],
        env: &mut BTreeMap<String, String>,
    ) -> Result<(), String> {
        self.set("framework", "ollama");
        let mut model = false;
        for a in args_of(args, &["--verbose", "--insecure", "--nowordwrap"]) {
            let v = a.value.clone().unwrap_or_default();
            match a.flag {
                "" if !model => {
                    // `llama3.1:8b-instruct-q4_K_M`: the tag's quant, else the library's Q4_K_M.
                    let tag = v.split_once(':').map_or("", |(_, tag)| tag);
                    if !self.gguf_weights(tag) {
                        self.set("weights", "q4_k_m");
                        self.note(format!(
                            "{v}: no quantization in the tag; planned at Ollama's usual Q4_K_M"
                        ));
                    }
                    self.set("model", v.replace(':', "-"));
                    model = true;
                }
                "" => self.note(format!("'{v}': a prompt, not planned")),
                flag => self.note(format!("{flag}: not modelled")),
            }
        }
        if !model {
            self.note("ollama serve names no model: the plan's is --model's".into());
        }
        if let Some(n) = env.remove("OLLAMA_CONTEXT_LENGTH") {
            self.set("context", n);
        }
        if let Some(n) = env.remove("OLLAMA_NUM_PARALLEL") {
            self.set("batch", n);
        }
        if let Some(t) = env.remove("OLLAMA_KV_CACHE_TYPE") {
            match t.as_str() {
                "f16" => {}
                "q8_0" | "q4_0" => self.set("kv", t),
                other => {
                    return Err(format!(
                        "--cmd: OLLAMA_KV_CACHE_TYPE={} is not a cache type Ollama has (f16, q8_0, q4_0)",
                        crate::text::clean_prefix(other, 20)
                    ));
                }
            }
        }
        if let Some(f) = env.remove("OLLAMA_FLASH_ATTENTION") {
            let on = matches!(f.as_str(), "1" | "true" | "on");
            self.set("flash-attention", if on { "on" } else { "off" });
        }
        Ok(())
    }
}
