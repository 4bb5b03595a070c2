//! The placements themselves: llama.cpp's and Ollama's layers (and experts) over the cards
//! and the host, and the streaming engines' weights in RAM, each with its speed and flags.

use super::{
    DeviceBytes, DeviceKind, DevicePart, Placement, Request, Strategy, flags, host_room, layers, speed,
    spill_of, stream,
};
use crate::engine::workload::scenario::Scenario;

pub(super) fn place_layers(r: &Request, experts: bool) -> Placement {
    // Only a model with experts has experts to move (a dense model's `--n-cpu-moe` moves
    // nothing, and printing it would start something else).
    let experts = experts && r.model.is_moe();
    let sc = r.scenario;
    let whole = Scenario {
        cards: 1,
        ..sc.clone()
    };
    let costs = layers::LayerCosts::of(r.model, &whole);
    let room = host_room(r.host, r.rig);
    let split = layers::best(&costs, r.rig, room.as_ref(), sc.pin, experts);
    let (_, unified) = super::card_slots(r.rig);
    let mut devices = Vec::new();
    let mut step = Vec::new();
    let mut card = 0usize;
    for c in r.rig {
        let loads = &split.cards[card..card + c.count as usize];
        card += c.count as usize;
        let fullest = loads
            .iter()
            .max_by(|a, b| a.bytes.total().total_cmp(&b.bytes.total()))
            .copied()
            .unwrap_or_default();
        let layers: u64 = loads.iter().map(|l| l.layers).sum();
        devices.push(DevicePart {
            device: c.gpu.id.clone(),
            kind: DeviceKind::Gpu,
            count: c.count,
            layers,
            experts_on_host: 0,
            bytes: fullest.bytes.total(),
            capacity_bytes: c.usable,
            free_bytes: c.usable - fullest.bytes.total(),
            parts: fullest.bytes,
        });
        let read: f64 = loads
            .iter()
            .map(|l| l.weights_read + l.kv_read * sc.batch.max(1) as f64)
            .sum();
        step.push(speed::part(
            c.gpu.name.clone(),
            read,
            Some(c.gpu.bandwidth_bytes_per_s()).filter(|b| *b > 0.0),
        ));
    }
    let host_load = split.host;
    if let Some(h) = &room {
        let capacity = layers::host_free(h, &split, &unified);
        devices.push(DevicePart {
            device: "host".into(),
            kind: DeviceKind::Host,
            count: 1,
            layers: host_load.layers,
            experts_on_host: host_load.experts_layers,
            bytes: host_load.bytes.total(),
            capacity_bytes: capacity,
            free_bytes: capacity - host_load.bytes.total(),
            parts: host_load.bytes,
        });
        step.push(speed::part(
            "host RAM",
            host_load.weights_read + host_load.kv_read * sc.batch.max(1) as f64,
            h.bandwidth_bytes_per_s,
        ));
    }
    // Hidden states cross PCIe where the token moves between devices: once per change of
    // device along the layers, and twice per layer whose experts run on the CPU (f32).
    let on_gpu_devices = split.cards.iter().filter(|c| c.layers > 0).count() as f64;
    let hops = (on_gpu_devices - 1.0).max(0.0)
        + f64::from(u8::from(host_load.layers > 0 && on_gpu_devices > 0.0))
        + 2.0 * host_load.experts_layers.saturating_sub(host_load.layers) as f64;
    let all_unified = unified.iter().all(|u| *u);
    if hops > 0.0 && !all_unified {
        let pcie = super::slowest_pcie_bytes_per_s(r.rig);
        step.push(speed::part(
            "PCIe",
            hops * costs.hidden * 4.0 * sc.batch.max(1) as f64,
            Some(pcie),
        ));
    }
    let strategy = match (split.gpu_layers == costs.total_layers(), split.cpu_moe > 0) {
        (true, false) => Strategy::AllOnGpu,
        (true, true) => Strategy::Experts,
        (false, _) => Strategy::Layers,
    };
    let flags = flags::layers(sc, &split, costs.layers, experts);
    let mut speed = speed::from_parts(step, sc.batch);
    if let Some(s) = &mut speed {
        // Each card computes its layers; what RAM holds is computed by the fastest card,
        // its weights copied over PCIe for each pass of n_ubatch tokens. A unified machine
        // computes it where it lies.
        let fp8 = sc.weights == crate::engine::model::precision::WeightPrecision::Fp8;
        let total = costs.total_layers() as f64;
        let mut shares: Vec<(f64, Option<f64>)> = Vec::new();
        let mut card = 0usize;
        for c in r.rig {
            let held: u64 = split.cards[card..card + c.count as usize]
                .iter()
                .map(|l| l.layers)
                .sum();
            card += c.count as usize;
            shares.push((
                held as f64 / total,
                crate::engine::speed::serving::peak_flops(c.gpu, fp8),
            ));
        }
        let fastest = r
            .rig
            .iter()
            .filter_map(|c| crate::engine::speed::serving::peak_flops(c.gpu, fp8))
            .fold(None, |a: Option<f64>, f| Some(a.map_or(f, |a| a.max(f))));
        shares.push((split.host.layers as f64 / total, fastest));
        // The token embedding is only looked up (one row a token): it never crosses.
        let streamed = if all_unified || room.is_none() {
            0.0
        } else {
            (host_load.bytes.weights - costs.embedding).max(0.0)
        };
        let pcie = super::slowest_pcie_bytes_per_s(r.rig);
        s.prefill_seconds = speed::prefill_seconds(
            r.model.params().active as f64,
            sc.prompt,
            &shares,
            streamed,
            sc.ubatch,
            pcie,
        );
    }
    Placement {
        strategy,
        devices,
        gpu_layers: split.gpu_layers,
        total_layers: costs.total_layers(),
        cpu_moe_layers: split.cpu_moe,
        streamed_bytes_per_card: 0.0,
        runtime_flags: flags,
        speed,
    }
}

pub(super) fn place_streamed(r: &Request) -> Placement {
    let sc = r.scenario;
    let count: u32 = r.rig.iter().map(|c| c.count).sum();
    // Tensor parallel gives every card an equal share: the smallest card bounds it.
    let usable = r.rig.iter().map(|c| c.usable).fold(f64::INFINITY, f64::min);
    // Streaming engines spill only into a host the plan was given (they do not run on a
    // unified-memory machine's own pool).
    let room = r
        .host
        .and(host_room(r.host, r.rig))
        .filter(|_| spill_of(sc).is_some());
    let streamed = match room {
        Some(_) => stream::offload_per_card(r.per_card, usable),
        None => Some(0.0),
    };
    let fits_weights = streamed.is_some();
    let streamed = streamed.unwrap_or(0.0);
    let bytes = stream::card_bytes(r.per_card, streamed);
    let mut devices: Vec<DevicePart> = r
        .rig
        .iter()
        .map(|c| DevicePart {
            device: c.gpu.id.clone(),
            kind: DeviceKind::Gpu,
            count: c.count,
            layers: r.model.arch.layers,
            experts_on_host: 0,
            bytes: bytes.total(),
            capacity_bytes: c.usable,
            free_bytes: if fits_weights { usable } else { 0.0 } - bytes.total(),
            parts: bytes,
        })
        .collect();
    let mut step = Vec::new();
    if let Some(w) = r.work {
        let n = f64::from(count.max(1));
        let b = sc.batch.max(1) as f64;
        let slowest = r
            .rig
            .iter()
            .map(|c| c.gpu.bandwidth_bytes_per_s())
            .fold(f64::INFINITY, f64::min);
        let name = r.rig.first().map_or(String::new(), |c| c.gpu.name.clone());
        step.push(speed::part(
            name,
            (w.weights_bytes + w.kv_bytes_per_sequence * b) / n,
            Some(slowest).filter(|s| s.is_finite() && *s > 0.0),
        ));
    }
    if let Some(h) = &room {
        let held = streamed * f64::from(count);
        devices.push(DevicePart {
            device: "host".into(),
            kind: DeviceKind::Host,
            count: 1,
            layers: 0,
            experts_on_host: 0,
            bytes: held,
            capacity_bytes: h.ram_bytes,
            free_bytes: h.ram_bytes - held,
            parts: DeviceBytes {
                weights: held,
                ..DeviceBytes::default()
            },
        });
        if streamed > 0.0 {
            let pcie = super::slowest_pcie_bytes_per_s(r.rig);
            step.push(speed::part("PCIe", streamed, Some(pcie)));
        }
    }
    let mut speed = speed::from_parts(step, sc.batch);
    if let Some(s) = &mut speed {
        // Tensor parallel over the slowest card's compute, and each forward pass (a chunk
        // of max_num_batched_tokens) copies the streamed weights again.
        let fp8 = sc.weights == crate::engine::model::precision::WeightPrecision::Fp8;
        let flops = r
            .rig
            .iter()
            .map(|c| crate::engine::speed::serving::peak_flops(c.gpu, fp8))
            .try_fold(f64::INFINITY, |a, f| f.map(|f| a.min(f)));
        let pcie = super::slowest_pcie_bytes_per_s(r.rig);
        s.prefill_seconds = speed::prefill_seconds(
            r.model.params().active as f64 / f64::from(count.max(1)),
            sc.prompt,
            &[(1.0, flops)],
            streamed,
            sc.max_batched_tokens,
            pcie,
        );
    }
    Placement {
        strategy: if streamed > 0.0 {
            Strategy::Streamed
        } else {
            Strategy::AllOnGpu
        },
        devices,
        gpu_layers: r.model.arch.layers,
        total_layers: r.model.arch.layers,
        cpu_moe_layers: 0,
        streamed_bytes_per_card: streamed,
        runtime_flags: flags::streamed(
            sc,
            r.rig.first().map_or(sc.gpu_util_on(count), |c| {
                crate::engine::runtimes::settle::gpu_util_for(sc, c.gpu, count)
            }),
            count,
            streamed,
        ),
        speed,
    }
}
