//! This machine's host memory: the CPU's name as `/proc/cpuinfo` and `lscpu` print it, turned
//! into a memory platform only where the CPU fixes the channels and the speed. Every model
//! name below is as printed on a real machine, with where it was published.

use vramfit::detect::{RamFrom, host_note, parse_cpuinfo, parse_memsize, platform_for_cpu};
use vramfit::engine::hardware::host::Host;

mod common;

fn id(model_name: &str) -> Option<&'static str> {
    platform_for_cpu(model_name).map(|p| p.id)
}

#[test]
fn server_and_workstation_cpus_name_their_platform() {
    for (name, platform, published) in [
        // EPYC 7003 (Milan): eight channels of DDR4-3200.
        (
            "AMD EPYC 7453 28-Core Processor",
            "epyc-7003",
            "/proc/cpuinfo, github.com/osmfoundation/osmf-server-info/pull/57",
        ),
        (
            "AMD EPYC 74F3 24-Core Processor",
            "epyc-7003",
            "lscpu, github.com/nviennot/core-to-core-latency/issues/33",
        ),
        (
            "AMD EPYC 7763 64-Core Processor",
            "epyc-7003",
            "github.com/innogames/igcollect/pull/164",
        ),
        // EPYC 9004 (Genoa): twelve channels of DDR5-4800.
        (
            "AMD EPYC 9754 128-Core Processor",
            "epyc-9004",
            "github.com/nviennot/core-to-core-latency/issues/94",
        ),
        (
            "AMD EPYC 9274F 24-Core Processor",
            "epyc-9004",
            "github.com/nviennot/core-to-core-latency/issues/132",
        ),
        // EPYC 9005 (Turin).
        (
            "AMD EPYC 9645 96-Core Processor",
            "epyc-9005",
            "lscpu, github.com/Dr-Noob/cpufetch/issues/365",
        ),
        // Xeon Platinum 8400 (Sapphire Rapids): eight channels of DDR5-4800.
        (
            "Intel(R) Xeon(R) Platinum 8480+",
            "xeon-sapphire-rapids",
            "lscpu, github.com/intel/torch-xpu-ops/issues/2246",
        ),
        (
            "Intel(R) Xeon(R) Platinum 8488C",
            "xeon-sapphire-rapids",
            "lscpu on AWS c7i.metal-48xl, github.com/szilard/GBM-perf/issues/59",
        ),
        // Xeon W-3400 and W-2400 (W790).
        (
            "Intel(R) Xeon(R) w9-3495X",
            "xeon-w-3400",
            "github.com/nviennot/core-to-core-latency/issues/80",
        ),
        (
            "Intel(R) Xeon(R) w7-2495X",
            "xeon-w-2400",
            "github.com/nviennot/core-to-core-latency/issues/80",
        ),
        // Xeon 6900P (Granite Rapids): twelve channels of DDR5-6400.
        (
            "Intel(R) Xeon(R) 6972P",
            "xeon-6-granite-rapids",
            "/proc/cpuinfo, github.com/archspec/archspec-json/issues/137",
        ),
        // Threadripper 7000 (TRX50 only: four channels). Found in the search index's copy
        // of a public CPU ranking table; the index named no repository.
        (
            "AMD Ryzen Threadripper 7980X 64-Cores",
            "threadripper-7000",
            "search index",
        ),
    ] {
        assert_eq!(id(name), Some(platform), "{name} ({published})");
    }
}

#[test]
fn cpus_whose_board_or_kit_decides_name_none() {
    for (name, why) in [
        // Desktop and laptop CPUs: DDR4 or DDR5, the kit's speed.
        (
            "AMD Ryzen 9 7900X 12-Core Processor",
            "AM5 desktop; github.com/nviennot/core-to-core-latency/issues/83",
        ),
        (
            "13th Gen Intel(R) Core(TM) i9-13980HX",
            "DDR4 or DDR5; /proc/cpuinfo, github.com/erpalma/throttled/issues/375",
        ),
        // Threadripper PRO 7000 WX: four channels on TRX50, eight on WRX90 (search index,
        // no repository named).
        ("AMD Ryzen Threadripper PRO 7995WX 96-Cores", "TRX50 or WRX90"),
        (
            "AMD Ryzen Threadripper PRO 5995WX 64-Cores",
            "not in the table; github.com/nviennot/core-to-core-latency/issues/133",
        ),
        (
            "AMD Ryzen Threadripper 3960X 24-Core Processor",
            "DDR4 TRX40; lscpu, github.com/geerlingguy/sbc-reviews/issues/2",
        ),
        (
            "AMD Ryzen Threadripper 9980X 64-Cores",
            "9000 series, not in the table; github.com/nviennot/core-to-core-latency/issues/136",
        ),
        // EPYC generations and lines the table lacks.
        (
            "AMD EPYC 8434P 48-Core Processor",
            "Siena, six channels; lscpu, github.com/sustainable-computing-io/kepler/pull/1288",
        ),
        (
            "AMD EPYC 7601 32-Core Processor",
            "Naples, DDR4-2666; lscpu, github.com/nviennot/core-to-core-latency/issues/106",
        ),
        (
            "AMD EPYC 7302 16-Core Processor",
            "Rome; github.com/nviennot/core-to-core-latency/issues/34",
        ),
        // Cloud-only parts (Azure) and the generic name a VM shows: not on AMD's lists.
        ("AMD EPYC 9V74 80-Core Processor", "Azure part; search index"),
        ("AMD EPYC Processor", "a VM's generic name"),
        // Xeons whose speed differs by part, or older generations.
        (
            "INTEL(R) XEON(R) GOLD 6542Y",
            "Emerald Rapids Gold; /proc/cpuinfo, github.com/archspec/archspec-json/issues/121",
        ),
        (
            "Intel(R) Xeon(R) Silver 4410Y",
            "Sapphire Rapids Silver, below DDR5-4800; github.com/cyring/CoreFreq/issues/560",
        ),
        (
            "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz",
            "Cascade Lake, six DDR4 channels; /proc/cpuinfo, github.com/andrewcrotty/mgbench/pull/5",
        ),
        (
            "Intel(R) Xeon(R) W-2123 CPU @ 3.60GHz",
            "Skylake-W; github.com/jeffhammond/vpu-count/issues/2",
        ),
        (
            "Intel(R) Xeon(R) CPU Max 9460 @ 2.20GHz",
            "HBM part; github.com/quattor/template-library-standard hardware/cpu/intel/xeon_9460.pan",
        ),
        (
            "Intel(R) Xeon(R) Processor",
            "a VM's generic name (this test machine)",
        ),
        ("", "nothing"),
    ] {
        assert_eq!(id(name), None, "{name} ({why})");
    }
}

#[test]
fn the_cpuinfo_parser_reads_the_first_model_name_and_the_hypervisor_flag() {
    // The layout of github.com/osmfoundation/osmf-server-info/pull/57 (a bare-metal host),
    // shortened.
    let metal = "processor       : 111\nvendor_id       : AuthenticAMD\ncpu family      : 25\n\
model           : 1\nmodel name      : AMD EPYC 7453 28-Core Processor\nstepping        : 1\n\
flags           : fpu vme de pse tsc msr pae mce cx8 apic sep mtrr\n";
    let cpu = parse_cpuinfo(metal).unwrap();
    assert_eq!(cpu.model_name, "AMD EPYC 7453 28-Core Processor");
    assert!(!cpu.virtual_machine);
    // An AWS guest (github.com/andrewcrotty/mgbench/pull/5): its flags name the hypervisor.
    let guest = "processor\t: 3\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n\
model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\n\
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr rdrand hypervisor lahf_lm abm\n\
processor\t: 4\nmodel name\t: something else\n";
    let cpu = parse_cpuinfo(guest).unwrap();
    assert_eq!(cpu.model_name, "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz");
    assert!(cpu.virtual_machine);
    // An ARM kernel prints no model name.
    assert_eq!(
        parse_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n"),
        None
    );
    assert_eq!(parse_cpuinfo(""), None);
}

#[test]
fn a_macs_memsize_is_bytes() {
    assert_eq!(parse_memsize("68719476736\n"), Some(68_719_476_736.0));
    assert_eq!(parse_memsize("0"), None);
    assert_eq!(parse_memsize("sysctl: unknown oid 'hw.memsize'"), None);
}

#[test]
fn the_note_says_what_was_found() {
    let epyc = vramfit::engine::hardware::host::platform("epyc-9004").unwrap();
    let host = Host {
        ram_bytes: 62.1e9,
        ..Host::new(0.0, None)
    }
    .on_platform(epyc);
    assert_eq!(
        host_note(&host, RamFrom::Available),
        "this machine's host: 62.1 GB available, AMD EPYC 9004 (12-channel DDR5-4800) 460.8 GB/s"
    );
    assert_eq!(
        host_note(&Host::new(64.0, None), RamFrom::Total),
        "this machine's host: 64.0 GB in all, bandwidth unknown: --ram-bandwidth GB/s"
    );
    assert_eq!(
        host_note(&Host::new(128.0, None).on_platform(epyc), RamFrom::Given),
        "this machine's host: 128.0 GB (--ram), AMD EPYC 9004 (12-channel DDR5-4800) 460.8 GB/s"
    );
}

/// `vramfit plan --here` with a fake `nvidia-smi` (one RTX 4090) first on PATH, under `lang`:
/// stdout as JSON, and stderr.
#[cfg(unix)]
fn here(name: &str, lang: &str, extra: &[&str]) -> (serde_json::Value, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("host-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let smi = dir.join("nvidia-smi");
    std::fs::write(
        &smi,
        "#!/bin/sh\necho '0, NVIDIA GeForce RTX 4090, 24564, 507, 550.54.15, 00000000:18:00.0'\n",
    )
    .unwrap();
    std::fs::set_permissions(&smi, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = common::vramfit_in(lang)
        .env("PATH", &dir)
        .args(["plan", "--model", "llama-3.1-8b", "--here", "--json"])
        .args(extra)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

/// `--here` takes this machine's RAM and, where its CPU fixes one, its platform's bandwidth,
/// and says so; `--ram` and `--ram-bandwidth` win over what was found.
#[cfg(target_os = "linux")]
#[test]
fn plan_here_takes_this_machines_host_unless_told_otherwise() {
    let platform = vramfit::detect::this_platform();
    let (plan, err) = here("found", "C.UTF-8", &[]);
    let sc = &plan["scenario"];
    assert!(err.contains("note: this machine's host: "), "{err}");
    assert!(err.contains(" GB available, "), "{err}");
    assert!(sc["ram_gb"].as_f64().unwrap() > 0.0, "{sc}");
    assert_eq!(sc["ram_platform"].as_str(), platform.map(|p| p.id), "{sc}");
    assert_eq!(
        sc["ram_bandwidth_gbs"].as_f64(),
        platform.map(|p| p.bandwidth_gbs),
        "{sc}"
    );
    if platform.is_none() {
        assert!(err.contains("bandwidth unknown: --ram-bandwidth GB/s"), "{err}");
    }

    // --ram alone: the RAM given, the bandwidth of this machine's platform (if any).
    let (plan, _) = here("ram", "C.UTF-8", &["--ram", "64"]);
    let sc = &plan["scenario"];
    assert_eq!(sc["ram_gb"], 64.0);
    assert_eq!(
        sc["ram_bandwidth_gbs"].as_f64(),
        platform.map(|p| p.bandwidth_gbs),
        "{sc}"
    );

    // Both given: nothing detected about the host, nothing said.
    let (plan, err) = here("both", "C.UTF-8", &["--ram", "64", "--ram-bandwidth", "100"]);
    let sc = &plan["scenario"];
    assert_eq!(sc["ram_gb"], 64.0);
    assert_eq!(sc["ram_bandwidth_gbs"], 100.0);
    assert!(sc["ram_platform"].is_null(), "{sc}");
    assert!(!err.contains("this machine's host"), "{err}");

    // In Chinese.
    let (_, err) = here("zh", "zh_CN.UTF-8", &[]);
    assert!(err.contains("注：本机内存：可用 "), "{err}");
    if platform.is_none() {
        assert!(err.contains("带宽未知：可用 --ram-bandwidth 给出 GB/s"), "{err}");
    }
}

/// A Mac the catalog lacks is still one pool: its stand-in card is unified memory, so the
/// host's `hw.memsize` and the GPU's share are not counted twice.
#[test]
fn an_unknown_apple_chip_is_unified_memory() {
    use vramfit::detect::{DetectedGpu, Detection, local};
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let d = Detection {
        gpus: vec![DetectedGpu {
            index: 0,
            name: "Apple M9 Max".into(),
            memory_total_bytes: 48_000_000_000,
            memory_used_bytes: 0,
            gtt_total_bytes: 0,
            driver: None,
            gpu: None,
            source: "sysctl",
        }],
        ..Detection::default()
    };
    let l = local(&d, &catalog).unwrap().unwrap();
    assert_eq!(l.gpu.id, "local");
    assert!(
        vramfit::engine::placement::is_unified(&l.gpu),
        "{}",
        l.gpu.memory_type
    );
}
