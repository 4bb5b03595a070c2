//! vLLM's and SGLang's launch commands: `vllm serve` (or its OpenAI server module) and
//! `python -m sglang.launch_server`.

use super::{Reader, args_of};

impl Reader {
    pub(super) fn vllm(&mut self, args: &[String]) -> Result<(), String> {
        self.set("framework", "vllm");
        let (mut tp, mut pp) = (1u64, 1u64);
        let mut model = false;
        for a in args_of(
            args,
            &[
                "--enforce-eager",
                "--trust-remote-code",
                "--enable-prefix-caching",
                "--disable-log-requests",
                "--enable-auto-tool-choice",
                "--enable-chunked-prefill",
                "--no-enable-prefix-caching",
                "--disable-custom-all-reduce",
                "--enable-expert-parallel",
            ],
        ) {
            let v = a.value.clone().unwrap_or_default();
            match a.flag {
                "" | "--model" if !model => {
                    self.model(&v, v.to_ascii_lowercase().ends_with(".gguf"));
                    model = true;
                }
                "--tensor-parallel-size" | "-tp" => tp = Self::number(&a, "vLLM")? as u64,
                "--pipeline-parallel-size" | "-pp" => pp = Self::number(&a, "vLLM")? as u64,
                "--max-model-len" => self.set("context", Self::number(&a, "vLLM")? as u64),
                "--gpu-memory-utilization" => self.set("gpu-util", Self::number(&a, "vLLM")?),
                "--kv-cache-dtype" => match v.as_str() {
                    "auto" => {}
                    k if k.starts_with("fp8") => self.set("kv", "fp8"),
                    other => return Err(format!("--cmd: vLLM's --kv-cache-dtype {} has no size in vramfit (auto or fp8)", crate::text::clean_prefix(other, 20))),
                },
                "--quantization" | "-q" => self.quantization(&v)?,
                "--dtype" => match v.as_str() {
                    "half" | "float16" => self.set("weights", "fp16"),
                    "bfloat16" => self.set("weights", "bf16"),
                    "float32" | "float" => self.set("weights", "fp32"),
                    _ => {}
                },
                "--max-num-seqs" => self.set("max-num-seqs", Self::number(&a, "vLLM")? as u64),
                "--max-num-batched-tokens" => self.set("max-batched-tokens", Self::number(&a, "vLLM")? as u64),
                "--cpu-offload-gb" => self.note(format!("--cpu-offload-gb {v}: vramfit streams what the cards lack from host RAM when --ram is given, rather than a fixed amount")),
                "--enforce-eager" => self.note("--enforce-eager: planned with vLLM's CUDA graphs (their memory is counted, so the plan errs high)".into()),
                flag => self.note(format!("{flag}{}: not modelled", a.value.map(|v| format!(" {v}")).unwrap_or_default())),
            }
        }
        if !model {
            return Err("--cmd: the vLLM command names no model (vllm serve MODEL)".into());
        }
        self.cards(tp, pp);
        Ok(())
    }

    pub(super) fn sglang(&mut self, args: &[String]) -> Result<(), String> {
        self.set("framework", "sglang");
        let (mut tp, mut pp) = (1u64, 1u64);
        let mut model = false;
        const KNOWN: &[&str] = &[
            "--model-path",
            "--tp-size",
            "--pp-size",
            "--mem-fraction-static",
            "--context-length",
            "--chunked-prefill-size",
            "--kv-cache-dtype",
            "--quantization",
            "--dtype",
            "--disable-radix-cache",
            "--disable-cuda-graph",
        ];
        for a in args_of(
            args,
            &[
                "--trust-remote-code",
                "--enable-torch-compile",
                "--disable-cuda-graph",
                "--disable-radix-cache",
                "--disable-radix",
                "--enable-dp-attention",
                "--disable-overlap",
                "--enable-metrics",
                "--disable-shared-experts-fusion",
            ],
        ) {
            let v = a.value.clone().unwrap_or_default();
            // Python's argparse takes any unambiguous prefix of a flag (`--mem-frac`).
            let flag = match KNOWN
                .iter()
                .filter(|k| k.starts_with(a.flag) && a.flag.len() > 2)
                .collect::<Vec<_>>()[..]
            {
                [one] if a.flag != "--model" && a.flag != "--tp" && a.flag != "--pp" => *one,
                _ => a.flag,
            };
            match flag {
                "--dtype" => match v.as_str() {
                    "half" | "float16" => self.set("weights", "fp16"),
                    "bfloat16" => self.set("weights", "bf16"),
                    _ => {}
                },
                "--model-path" | "--model" => {
                    self.model(&v, false);
                    model = true;
                }
                "--tp" | "--tp-size" | "--tensor-parallel-size" => tp = Self::number(&a, "SGLang")? as u64,
                "--pp" | "--pp-size" => pp = Self::number(&a, "SGLang")? as u64,
                "--mem-fraction-static" => self.set("gpu-util", Self::number(&a, "SGLang")?),
                "--context-length" => self.set("context", Self::number(&a, "SGLang")? as u64),
                "--chunked-prefill-size" => {
                    self.set("max-batched-tokens", Self::number(&a, "SGLang")? as u64)
                }
                "--kv-cache-dtype" => match v.as_str() {
                    "auto" => {}
                    k if k.starts_with("fp8") => self.set("kv", "fp8"),
                    other => {
                        return Err(format!(
                            "--cmd: SGLang's --kv-cache-dtype {} has no size in vramfit (auto or fp8_e5m2)",
                            crate::text::clean_prefix(other, 20)
                        ));
                    }
                },
                "--quantization" => self.quantization(&v)?,
                other => self.note(format!(
                    "{other}{}: not modelled",
                    a.value.map(|v| format!(" {v}")).unwrap_or_default()
                )),
            }
        }
        if !model {
            return Err("--cmd: the SGLang command names no model (--model-path MODEL)".into());
        }
        self.cards(tp, pp);
        Ok(())
    }
}
