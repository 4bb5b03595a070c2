//! A launch command read back as a plan (`vramfit plan --cmd '…'`): `llama-server` /
//! `llama-cli`, `vllm serve` (or vLLM's OpenAI server module), `python -m
//! sglang.launch_server`, and `ollama run` / `ollama serve` with `OLLAMA_*` variables. Each
//! flag that changes what the runtime allocates becomes the `vramfit plan` flag that plans
//! it; every other flag is named in a note, never dropped silently. The card is the user's
//! (`--gpu`, `--here`): a launch command does not say which card it runs on.

mod ggml;
mod serving;

use std::collections::BTreeMap;
use std::path::Path;

/// What a launch command plans as.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The `vramfit plan` flags that plan the command, in order (`--model X --framework vllm …`).
    pub flags: Vec<String>,
    /// What was read but not modelled, or assumed, one line each.
    pub notes: Vec<String>,
}

/// The runtimes a launch command can start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Program {
    LlamaCpp,
    Vllm,
    Sglang,
    Ollama,
}

/// Read `command` (as a shell would split it; `\` line continuations allowed).
pub fn read(command: &str) -> Result<Launch, String> {
    let joined = command.replace("\\\r\n", " ").replace("\\\n", " ");
    let words = shell_words::split(&joined).map_err(|e| format!("--cmd: cannot split the command: {e}"))?;
    let mut env = BTreeMap::new();
    let mut rest = words.as_slice();
    // `KEY=value` before the program, and `env KEY=value …`.
    while let Some((first, tail)) = rest.split_first() {
        if first == "env" || first == "sudo" {
            rest = tail;
        } else if let Some((k, v)) = first.split_once('=').filter(|(k, _)| is_env_name(k)) {
            env.insert(k.to_string(), v.to_string());
            rest = tail;
        } else {
            break;
        }
    }
    let (program, args) = program_of(rest)?;
    let mut l = Reader {
        flags: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(devices) = env
        .remove("CUDA_VISIBLE_DEVICES")
        .or_else(|| env.remove("HIP_VISIBLE_DEVICES"))
    {
        let n = devices.split(',').filter(|d| !d.trim().is_empty()).count();
        l.note(format!(
            "CUDA_VISIBLE_DEVICES={devices}: {n} card(s) visible; the cards are --gpu's (or --here's)"
        ));
    }
    match program {
        Program::LlamaCpp => l.llama_cpp(args)?,
        Program::Vllm => l.vllm(args)?,
        Program::Sglang => l.sglang(args)?,
        Program::Ollama => l.ollama(args, &mut env)?,
    }
    for (k, v) in env {
        l.note(format!("{k}={v}: not modelled"));
    }
    Ok(Launch {
        flags: l.flags,
        notes: l.notes,
    })
}

fn is_env_name(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit())
}

/// The program and its arguments: the runtime's own words after `python -m …`, `vllm
/// serve`, `ollama run`, or a path ending in `llama-server`.
fn program_of(words: &[String]) -> Result<(Program, &[String]), String> {
    let Some((first, tail)) = words.split_first() else {
        return Err("--cmd: the command is empty".into());
    };
    let name = Path::new(first)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(first);
    let name = name.trim_end_matches(".exe");
    match name {
        "llama-server" | "llama-cli" | "server" | "main" => return Ok((Program::LlamaCpp, tail)),
        "vllm" => {
            return match tail.split_first() {
                Some((serve, args)) if serve == "serve" => Ok((Program::Vllm, args)),
                _ => Err("--cmd: `vllm` without `serve`: write the command that starts the server (vllm serve MODEL …)".into()),
            };
        }
        "ollama" => {
            return match tail.split_first() {
                Some((verb, args)) if verb == "run" || verb == "serve" => Ok((Program::Ollama, args)),
                _ => Err("--cmd: `ollama` without `run` or `serve`".into()),
            };
        }
        _ => {}
    }
    if name.starts_with("python")
        && let Some(at) = tail.iter().position(|w| w == "-m")
    {
        let module = tail.get(at + 1).map(String::as_str).unwrap_or("");
        let args = &tail[(at + 2).min(tail.len())..];
        return match module {
            "sglang.launch_server" => Ok((Program::Sglang, args)),
            "vllm.entrypoints.openai.api_server" => Ok((Program::Vllm, args)),
            "llama_cpp.server" => Ok((Program::LlamaCpp, args)),
            other => Err(format!(
                "--cmd: python -m {} is no runtime vramfit reads (sglang.launch_server, vllm.entrypoints.openai.api_server)",
                crate::text::clean_prefix(other, 40)
            )),
        };
    }
    Err(format!(
        "--cmd: '{}' is no launch command vramfit reads: llama-server, llama-cli, vllm serve, python -m sglang.launch_server, ollama run",
        crate::text::clean_prefix(first, 40)
    ))
}

/// The GGUF type a file or tag names (`Q4_K_M`, `q8_0`, `F16`), as `--weights` names it, with
/// whether it is the nearest rather than the same.
fn quant_in(reference: &str) -> Option<(&'static str, bool)> {
    let lower = reference.to_ascii_lowercase();
    let tokens: Vec<&str> = lower.split(['-', '.', ':', '/', ' ']).collect();
    tokens.iter().rev().find_map(|t| {
        Some(match *t {
            "q8_0" => ("q8_0", false),
            "q6_k" => ("q6_k", false),
            "q5_k_m" => ("q5_k_m", false),
            "q4_k_m" => ("q4_k_m", false),
            "q4_0" => ("q4_0", false),
            "q3_k_m" => ("q3_k_m", false),
            "q2_k" => ("q2_k", false),
            "f16" | "fp16" => ("fp16", false),
            "bf16" => ("bf16", false),
            "f32" => ("fp32", false),
            "mxfp4" => ("mxfp4", false),
            "q5_k_s" | "q5_0" | "q5_1" => ("q5_k_m", true),
            "q4_k_s" | "q4_1" | "iq4_xs" | "iq4_nl" => ("q4_k_m", true),
            "q3_k_s" | "q3_k_l" | "iq3_m" | "iq3_xxs" | "iq3_xs" => ("q3_k_m", true),
            "q2_k_s" | "q2_k_l" | "iq2_m" | "iq2_xs" | "iq2_xxs" => ("q2_k", true),
            "q6_k_l" => ("q6_k", true),
            _ => return None,
        })
    })
}

/// The weights' format a checkpoint's name states, as `--weights` names it.
fn checkpoint_format(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(['-', '_', '.', ' ']).collect();
    let has = |w: &str| words.contains(&w);
    if has("fp8") || has("w8a8") && has("fp8") {
        Some("fp8")
    } else if has("mxfp4") {
        Some("mxfp4")
    } else if has("awq") || has("gptq") || has("int4") || has("w4a16") {
        Some("int4")
    } else if has("bnb") && has("4bit") {
        Some("nf4")
    } else if has("int8") || has("w8a8") {
        Some("int8")
    } else {
        None
    }
}

struct Reader {
    flags: Vec<String>,
    notes: Vec<String>,
}

/// One `--flag value`, `--flag=value` or bare `--flag` of a command.
struct Arg<'a> {
    flag: &'a str,
    value: Option<String>,
}

/// The command's arguments as flags with their values: a flag's value is the next word
/// unless it starts with `-` (or it is written `--flag=value`); positional words come back
/// with an empty flag.
fn args_of<'a>(args: &'a [String], bare: &[&str]) -> Vec<Arg<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = args[i].as_str();
        if w.starts_with('-') && w.len() > 1 && !w[1..].starts_with(|c: char| c.is_ascii_digit()) {
            if let Some((f, v)) = w.split_once('=') {
                out.push(Arg {
                    flag: f,
                    value: Some(v.to_string()),
                });
            } else if bare.contains(&w) {
                // A switch; llama.cpp's `-fa` takes `on|off|auto` since late 2025.
                let next = args
                    .get(i + 1)
                    .filter(|n| matches!(n.as_str(), "on" | "off" | "auto" | "1" | "0"));
                out.push(Arg {
                    flag: w,
                    value: next.cloned(),
                });
                i += usize::from(next.is_some());
            } else {
                // The next word is the value unless it is a flag itself (a negative number is a value).
                let next = args
                    .get(i + 1)
                    .filter(|n| !n.starts_with('-') || n[1..].starts_with(|c: char| c.is_ascii_digit()));
                out.push(Arg {
                    flag: w,
                    value: next.cloned(),
                });
                i += usize::from(next.is_some());
            }
        } else {
            out.push(Arg {
                flag: "",
                value: Some(w.to_string()),
            });
        }
        i += 1;
    }
    out
}

impl Reader {
    fn note(&mut self, line: String) {
        self.notes.push(line);
    }

    fn set(&mut self, flag: &str, value: impl ToString) {
        self.flags.push(format!("--{flag}"));
        self.flags.push(value.to_string());
    }

    /// A number a flag must carry, or a clear refusal.
    fn number(a: &Arg, program: &str) -> Result<f64, String> {
        let v = a.value.as_deref().unwrap_or("");
        // vLLM reads lengths as `32k` (thousands) or `32K` (1,024s), `1m` / `1M` alike.
        let scales = [('k', 1e3), ('K', 1024.0), ('m', 1e6), ('M', 1_048_576.0)];
        let (digits, scale) = scales
            .iter()
            .find_map(|(c, s)| v.strip_suffix(*c).map(|d| (d.to_string(), *s)))
            .unwrap_or((v.to_string(), 1.0));
        digits.parse::<f64>().map(|n| n * scale).map_err(|_| {
            format!(
                "--cmd: {program}'s {} needs a number, got '{}'",
                a.flag,
                crate::text::clean_prefix(v, 20)
            )
        })
    }

    /// `--weights` for the GGUF type `named_in` names (a file, a tag), with a note where it
    /// is the nearest vramfit has; whether it named one.
    fn gguf_weights(&mut self, named_in: &str) -> bool {
        let Some((weights, nearest)) = quant_in(named_in) else {
            return false;
        };
        self.set("weights", weights);
        if nearest {
            self.note(format!(
                "{named_in}: planned at the nearest format vramfit has, {weights}"
            ));
        }
        true
    }

    fn model(&mut self, reference: &str, gguf_quant: bool) {
        let path = Path::new(reference);
        if path.exists() {
            // The file itself: its header gives the count and the stored format.
            self.set("model", reference);
            return;
        }
        let stem = path.file_name().and_then(|n| n.to_str()).unwrap_or(reference);
        let stem = [".gguf", ".bin", ".ggml"]
            .iter()
            .find_map(|x| stem.strip_suffix(x))
            .unwrap_or(stem);
        if gguf_quant {
            self.gguf_weights(stem);
        }
        // A quantized checkpoint names its format (`…-FP8`, `…-AWQ-INT4`, `…-bnb-4bit`); a
        // `--quantization` flag after it wins.
        if !gguf_quant && let Some(weights) = checkpoint_format(stem) {
            self.set("weights", weights);
        }
        // Names a catalog model by its published name (matched in the catalog), or an
        // org/name in the Hugging Face cache.
        let name =
            if reference.contains('/') && !path.is_absolute() && !reference.starts_with('.') && !gguf_quant {
                reference.to_string()
            } else {
                stem.to_string()
            };
        self.set("model", name);
    }

    /// vLLM's and SGLang's `--quantization`: the weights' format it loads.
    fn quantization(&mut self, q: &str) -> Result<(), String> {
        let weights = match q {
            "fp8" | "fbgemm_fp8" | "modelopt" => "fp8",
            "awq" | "awq_marlin" | "gptq" | "gptq_marlin" | "marlin" | "compressed-tensors" => "int4",
            "bitsandbytes" => "nf4",
            "mxfp4" => "mxfp4",
            "experts_int8" | "int8" => "int8",
            other => {
                return Err(format!(
                    "--cmd: --quantization {} has no weight format in vramfit (fp8, awq, gptq, bitsandbytes, mxfp4)",
                    crate::text::clean_prefix(other, 20)
                ));
            }
        };
        self.set("weights", weights);
        if q == "compressed-tensors" {
            self.note("--quantization compressed-tensors: planned as 4-bit weights (W4A16); an FP8 checkpoint reads as --weights fp8".into());
        }
        Ok(())
    }

    /// Tensor- and pipeline-parallel sizes as cards and a split.
    fn cards(&mut self, tp: u64, pp: u64) {
        match (tp.max(1), pp.max(1)) {
            (1, 1) => {}
            (t, 1) => {
                self.set("cards", t);
                self.set("split", "tensor");
            }
            (1, p) => {
                self.set("cards", p);
                self.set("split", "layer");
            }
            (t, p) => {
                self.set("cards", t * p);
                self.set("split", "tensor");
                self.note(format!(
                    "tensor parallel {t} × pipeline {p}: planned as {} cards split by tensor",
                    t * p
                ));
            }
        }
    }
}
