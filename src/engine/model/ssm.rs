//! State-space mixers (Mamba 1, Mamba 2 and the hybrids' other mixers): their parameters and
//! the fixed state each sequence keeps instead of a KV cache.

use serde::{Deserialize, Serialize};

use crate::engine::basics::units::narrow;

/// State-space (Mamba) layers: a fixed-size state per sequence instead of a KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ssm {
    /// Layers that are state-space mixers instead of attention (all of a Mamba; the rest of
    /// a hybrid's).
    pub layers: u64,
    /// Inner width (expand × hidden).
    pub inner: u64,
    /// State size per channel (d_state).
    pub state: u64,
    pub conv_kernel: u64,
    /// Mamba 1's time-step rank (x_proj and dt_proj); 0 for Mamba 2.
    #[serde(default)]
    pub dt_rank: u64,
    /// Mamba 2: heads (a dt, A and D each) and groups of B and C; 0 for Mamba 1.
    #[serde(default)]
    pub heads: u64,
    #[serde(default)]
    pub groups: u64,
    /// The state-space layers also have an MLP (hybrids such as Jamba; a Mamba has none).
    #[serde(default)]
    pub mlp: bool,
    /// Biases on the in and out projections, and on the convolution.
    #[serde(default)]
    pub proj_bias: bool,
    #[serde(default)]
    pub conv_bias: bool,
    /// Jamba's RMSNorms on dt, B and C inside the mixer.
    #[serde(default)]
    pub inner_norms: bool,
    /// A mixer that is not a Mamba (a short convolution, a linear attention) read from an
    /// unknown family's config: its parameters per layer, counted where it was read, since
    /// the Mamba formulas above do not describe it.
    #[serde(default)]
    pub mixer_params: Option<u64>,
    /// Such a mixer's state per sequence per layer (elements), likewise.
    #[serde(default)]
    pub mixer_state: Option<u64>,
    /// Layers that are a lone MLP, neither mixer nor attention (Nemotron-H's `-` in
    /// `hybrid_override_pattern`). With any, every sublayer is a layer of its own: the
    /// attention layers have no MLP either, and the MLPs are these.
    #[serde(default)]
    pub mlp_only_layers: u64,
    /// Mixers the published checkpoint in `attention_16bit_in`'s format keeps in 16-bit with
    /// the attention: NVIDIA's Nemotron-H recipe keeps each Mamba layer that feeds an
    /// attention layer.
    #[serde(default)]
    pub kept_16bit: u64,
    /// Bytes an element of the recurrent (SSM) state takes where the checkpoint names its
    /// dtype (Nemotron-H's `mamba_ssm_cache_dtype`: 4 for float32); 0 = the model's 16 bits,
    /// as the conv state always is.
    #[serde(default)]
    pub ssm_state_bytes: u64,
}

impl Ssm {
    /// Channels the convolution runs over (Mamba 2 convolves B and C too).
    pub fn conv_channels(&self) -> u64 {
        self.inner + 2 * self.groups * self.state
    }

    /// Parameters of one state-space mixer.
    pub fn params(&self, hidden: u64) -> u64 {
        narrow(self.params_wide(hidden))
    }

    /// The same count in 128 bits: with every field in its validated range it cannot
    /// overflow, so the shape check can bound the real formula.
    pub(crate) fn params_wide(&self, hidden: u64) -> u128 {
        let w = u128::from;
        if let Some(p) = self.mixer_params {
            return w(p);
        }
        let (h, di, ds) = (w(hidden), w(self.inner), w(self.state));
        let (dt_rank, heads, groups) = (w(self.dt_rank), w(self.heads), w(self.groups));
        let bias = |n: u128| if self.proj_bias { n } else { 0 };
        let channels = di + 2 * groups * ds;
        let conv = channels * w(self.conv_kernel) + if self.conv_bias { channels } else { 0 };
        if self.heads == 0 {
            // Mamba 1: in_proj (x and z), conv, x_proj (dt, B, C), dt_proj, A_log, D, out_proj.
            let x_proj = di * (dt_rank + 2 * ds);
            let dt_proj = dt_rank * di + di;
            let norms = if self.inner_norms { dt_rank + 2 * ds } else { 0 };
            h * 2 * di + bias(2 * di) + conv + x_proj + dt_proj + di * ds + di + di * h + bias(h) + norms
        } else {
            // Mamba 2: in_proj (z, x, B, C, dt), conv, dt_bias, A_log, D, the gated norm, out_proj.
            let in_proj = 2 * di + 2 * groups * ds + heads;
            h * in_proj + bias(in_proj) + conv + 3 * heads + di + di * h + bias(h)
        }
    }

    /// State elements one sequence keeps per layer: the convolution's last kernel − 1 inputs
    /// and the recurrent state.
    pub fn state_elements(&self) -> u64 {
        if let Some(s) = self.mixer_state {
            return s;
        }
        self.conv_channels() * self.conv_kernel.saturating_sub(1) + self.inner * self.state
    }

    /// Of those, the recurrent state's (none for a mixer stated by its own count).
    pub fn recurrent_elements(&self) -> u64 {
        if self.mixer_state.is_some() {
            0
        } else {
            self.inner * self.state
        }
    }
}
