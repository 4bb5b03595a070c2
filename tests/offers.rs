//! `--offers FILE` (issue 29, "Prices you can refresh"): the user's own prices added to the
//! catalog or replacing its offers, every bad row refused at its line, and prices over a year
//! old marked stale without being passed over.

use serde_json::Value;

mod common;
use common::{option, vramfit, vramfit_in};

use vramfit::catalog::Catalog;
use vramfit::dates::parse_day;

/// The example files, as docs/guide/catalog.md shows them.
fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A file of this name and content in a folder of its own.
fn file_with(name: &str, content: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "offers-{}-{}",
        std::process::id(),
        name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_string()
}

const HEADER: &str = "provider,card,count,price,per,spot,region,date\n";

/// `plan --json` on a fixed day, with these offers files.
fn plan_json(today: &str, args: &[&str]) -> Value {
    let out = vramfit()
        .env("VRAMFIT_TODAY", today)
        .args(["plan", "-m", "llama-3.1-8b", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The option of `count` cards of `gpu` in a plan.

#[test]
fn the_example_csv_adds_an_offer_priced_per_card_with_its_date() {
    let with = plan_json("2026-12-06", &["--offers", &example("offers.csv")]);
    // Example Cloud's 8-card node at $15.92/hour is $1.99 per card, the cheapest for 8 H100s.
    let o = option(&with, "h100-sxm", 8);
    let offer = &o["offer"];
    assert_eq!(offer["provider"], "Example Cloud");
    assert!((offer["price"].as_f64().unwrap() - 1.99).abs() < 1e-9, "{offer}");
    assert_eq!(offer["per"], "hour");
    assert_eq!(offer["kind"], "on-demand");
    assert_eq!(offer["region"], "us-east");
    assert_eq!(offer["seen"], "2026-11-20");
    assert_eq!(offer["stale"], false);
    let month = o["price_usd_month"].as_f64().unwrap();
    assert!((month - 1.99 * 720.0 * 8.0).abs() < 1e-6, "{month}");
    // The spot row is a spot offer, shown apart.
    assert_eq!(
        option(&with, "l40s", 1)["spot_offer"]["provider"],
        "Example Cloud"
    );
    // The 8-card price is no price for fewer cards: one H100 keeps the catalog's offer.
    assert_ne!(option(&with, "h100-sxm", 1)["offer"]["provider"], "Example Cloud");
    let without = plan_json("2026-12-06", &[]);
    assert_ne!(
        option(&without, "h100-sxm", 8)["offer"]["provider"],
        "Example Cloud"
    );
}

#[test]
fn the_json_list_is_the_csv() {
    let csv = plan_json("2026-12-06", &["--offers", &example("offers.csv")]);
    let json = plan_json("2026-12-06", &["--offers", &example("offers.json")]);
    assert_eq!(csv, json);
}

#[test]
fn a_row_of_the_same_provider_card_count_and_kind_replaces_the_catalog_offer() {
    let before = plan_json("2026-12-06", &["--gpu", "mi300x"]);
    assert_eq!(option(&before, "mi300x", 1)["price_usd_month"], 1590.0);
    let path = file_with(
        "override.csv",
        &format!("{HEADER}gpu rent hub,mi300x,1,990,month,no,DFW-1 Dallas,2026-11-01\n"),
    );
    let after = plan_json("2026-12-06", &["--gpu", "mi300x", "--offers", &path]);
    let o = option(&after, "mi300x", 1);
    assert_eq!(o["price_usd_month"], 990.0);
    // The catalog's spelling of the provider stays; the date is the file's.
    assert_eq!(o["offer"]["provider"], "GPU Rent Hub");
    assert_eq!(o["offer"]["seen"], "2026-11-01");
    // Replaced, not added: the card has as many offers as before.
    let offers = |extra: &[&str]| {
        let out = vramfit()
            .args(["gpus", "--search", "mi300x", "--json"])
            .args(extra)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let card = v
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == "mi300x")
            .unwrap()
            .clone();
        (
            card["offers"].as_array().unwrap().len(),
            card["price_usd_month"].clone(),
        )
    };
    let (n, price) = offers(&[]);
    assert_eq!(price, 1590.0);
    assert_eq!(offers(&["--offers", &path]), (n, Value::from(990.0)));
    // A spot row of the same provider is another kind of price: added beside it.
    let spot = file_with(
        "spot.csv",
        &format!("{HEADER}GPU Rent Hub,mi300x,1,1.10,hour,yes,,2026-11-01\n"),
    );
    assert_eq!(offers(&["--offers", &spot]).0, n + 1);
}

#[test]
fn every_bad_row_is_refused_at_its_line() {
    let row = "Example Cloud,h100-sxm,1,2.5,hour,no,,2026-11-01\n";
    let cases: Vec<(String, &str)> = vec![
        (
            "provider,card,count,price,per,spot,region\nX,h100-sxm,1,2,hour,no,\n".into(),
            "bad.csv:1: column 'date' is missing",
        ),
        (
            format!(
                "provider,card,count,price,per,spot,region,date,colour\n{}",
                row.replace('\n', ",red\n")
            ),
            "bad.csv:1: column 'colour' is not one of provider,card,count,price,per,spot,region,date",
        ),
        (
            format!("{HEADER}{row}Example Cloud,h100-sxn,1,2.5,hour,no,,2026-11-01\n"),
            "bad.csv:3: card: unknown gpu 'h100-sxn'. Did you mean: h100-sxm",
        ),
        (
            format!("{HEADER}{}", row.replace("2.5", "abc")),
            "bad.csv:2: price: \"abc\" is not a number",
        ),
        (
            format!("{HEADER}{}", row.replace("2.5", "-1")),
            "bad.csv:2: price: must be above 0, got -1",
        ),
        (
            format!("{HEADER}{}", row.replace("2.5", "0")),
            "bad.csv:2: price: must be above 0",
        ),
        (
            format!("{HEADER}{}", row.replace("2.5", "NaN")),
            "bad.csv:2: price: \"NaN\" is not a number",
        ),
        (
            format!("{HEADER}{}", row.replace("2026-11-01", "2026-02-30")),
            "bad.csv:2: date: \"2026-02-30\" is not a date written as YYYY-MM-DD",
        ),
        (
            format!("{HEADER}{}", row.replace("2026-11-01", "2027-01-01")),
            "bad.csv:2: date: 2027-01-01 is in the future",
        ),
        (
            format!("{HEADER}{}", row.replace("hour", "day")),
            "bad.csv:2: per: \"day\" must be hour or month",
        ),
        (
            format!("{HEADER}{}", row.replace(",1,", ",0,")),
            "bad.csv:2: count: \"0\" is not a number of cards",
        ),
        (
            format!("{HEADER}{}", row.replace(",no,", ",maybe,")),
            "bad.csv:2: spot: \"maybe\" must be yes or no",
        ),
        (
            format!("{HEADER}{}", row.replace(",,", ",")),
            "bad.csv:2: the row has 7 fields, the header 8",
        ),
        (HEADER.into(), "bad.csv: holds no offers"),
    ];
    for (content, wanted) in cases {
        let path = file_with("bad.csv", &content);
        let out = vramfit()
            .env("VRAMFIT_TODAY", "2026-12-06")
            .args(["plan", "-m", "llama-3.1-8b", "--offers", &path])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{content}\n{err}");
        assert!(err.contains(wanted), "{content}\nwanted: {wanted}\ngot: {err}");
    }
    let out = vramfit()
        .args(["gpus", "--offers", "no-such-offers.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no-such-offers.csv: no such offers file"),
        "{out:?}"
    );
}

#[test]
fn errors_in_chinese_keep_the_file_line_and_column() {
    let path = file_with(
        "zh.csv",
        &format!("{HEADER}X,h100-sxm,1,abc,hour,no,,2026-11-01\n"),
    );
    let out = vramfit_in("zh_CN.UTF-8")
        .args(["gpus", "--offers", &path])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("zh.csv:2: price：“abc” 不是数字"), "{err}");
}

#[test]
fn a_price_over_a_year_old_is_marked_stale_but_still_ranked() {
    // Sample GPU Co's RTX 3090 at $0.19/hour was seen 2025-06-01.
    let on = |today: &str, file: &str| {
        let plan = plan_json(today, &["--gpu", "rtx-3090", "--offers", file]);
        option(&plan, "rtx-3090", 1)["offer"].clone()
    };
    // On 2026-05-31 that row is a year old to the day but one (the file's other rows would
    // be dated in the future then: the row alone).
    let row = file_with(
        "old.csv",
        &format!("{HEADER}Sample GPU Co,rtx-3090,1,0.19,hour,no,,2025-06-01\n"),
    );
    let fresh = on("2026-05-31", &row);
    assert_eq!(
        (fresh["seen"].as_str(), fresh["stale"].as_bool()),
        (Some("2025-06-01"), Some(false))
    );
    let old = on("2026-12-06", &example("offers.csv"));
    assert_eq!(old["stale"], true);
    // Stale, it is still the cheapest: the mark informs, it does not rank.
    assert_eq!(old["provider"], "Sample GPU Co");
    let out = vramfit()
        .env("VRAMFIT_TODAY", "2026-12-06")
        .args([
            "plan",
            "-m",
            "llama-3.1-8b",
            "--gpu",
            "rtx-3090",
            "--offers",
            &example("offers.csv"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Sample GPU Co's price was seen 2025-06-01, over a year ago: it may have changed."),
        "{text}"
    );
}

#[test]
fn the_reader_locates_json_rows_and_dates_against_a_fixed_today() {
    let today = parse_day("2026-12-06").unwrap();
    let mut catalog = Catalog::embedded().unwrap();
    let json = "[\n  {\"provider\": \"A\", \"card\": \"l4\", \"count\": 1, \"price\": 0.4, \"per\": \"hour\",\n   \"spot\": false, \"date\": \"2026-11-01\"},\n  {\"provider\": \"B\", \"card\": \"l4\", \"count\": 2,\n   \"price\": 0.9, \"per\": \"week\", \"spot\": \"no\", \"date\": \"2026-11-01\"}\n]\n";
    let err = catalog.merge_offers_str("o.json", json, true, today).unwrap_err();
    assert_eq!(err.to_string(), "o.json:4: per: \"week\" must be hour or month");
    // Nothing of a refused file is merged.
    assert!(
        catalog
            .gpus
            .iter()
            .flat_map(|g| &g.offers)
            .all(|o| o.provider != "A")
    );
    // A day ahead is allowed (time zones); two are not.
    let row = |date: &str| format!("{HEADER}A,l4,2,0.9,hour,no,,{date}\n");
    assert!(
        catalog
            .merge_offers_str("o.csv", &row("2026-12-07"), false, today)
            .is_ok()
    );
    let err = catalog
        .merge_offers_str("o.csv", &row("2026-12-08"), false, today)
        .unwrap_err();
    assert_eq!(err.to_string(), "o.csv:2: date: 2026-12-08 is in the future");
    // The card's name finds it too; the price is stored per card, in the file's currency.
    // A spreadsheet's byte-order mark is no part of the first column's name.
    let named = "\u{feff}currency,provider,card,count,price,per,spot,region,date\n\
                 cny,B,GeForce RTX 4090,4,10,hour,no,,2026-11-01\n";
    catalog.merge_offers_str("o.csv", named, false, today).unwrap();
    let card = &catalog.gpus[catalog.gpu_index("rtx-4090").unwrap()];
    let b = card.offers.iter().find(|o| o.provider == "B").unwrap();
    assert_eq!((b.price, b.min_cards, b.currency.as_str()), (2.5, 4, "CNY"));
    assert_eq!(b.source.as_deref(), Some("offers file o.csv"));
}

#[test]
fn the_planner_refuses_a_missing_offers_file_before_the_screen_opens() {
    let out = vramfit()
        .args(["--offers", "no-such-offers.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such offers file"));
}

#[test]
fn the_planner_marks_a_stale_price_in_the_cards_pane() {
    let today = parse_day("2026-12-06").unwrap();
    vramfit::dates::pin_today(Some(today));
    let mut app = vramfit::tui::states::fresh_app("default");
    let row = format!("{HEADER}Sample GPU Co,rtx-3090,1,0.19,hour,no,,2025-06-01\n");
    app.catalog
        .merge_offers_str("old.csv", &row, false, today)
        .unwrap();
    app.select_model("llama-3.1-8b");
    app.set_scenario(app.scenario.clone());
    let buf = vramfit::tui::states::render(&mut app, 160, 48);
    let text: String = (0..48)
        .map(|y| (0..160).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    // $0.19 × 720 h = $137 a month, marked: the price may have moved since it was seen.
    let line = text
        .lines()
        .find(|l| l.contains("GeForce RTX 3090 "))
        .expect(&text);
    assert!(line.contains("~$137"), "{line}");
    assert!(!text.contains("~$1,"), "only the stale price is marked\n{text}");
}

proptest::proptest! {
    /// Any text, or the example file with one byte changed, is read or refused with a
    /// located error; nothing panics, and a refused file changes no offer.
    #[test]
    fn the_reader_never_panics(
        text in "[ -~\n\"\\[\\]{},:é]{0,300}",
        at in 0usize..2000,
        byte in proptest::prelude::any::<u8>(),
        json in proptest::prelude::any::<bool>(),
    ) {
        let today = parse_day("2026-12-06").unwrap();
        let example = std::fs::read(example(if json { "offers.json" } else { "offers.csv" })).unwrap();
        let mut changed = example.clone();
        let i = at % changed.len();
        changed[i] = byte;
        for source in [text, String::from_utf8_lossy(&changed).into_owned()] {
            let mut catalog = Catalog::embedded().unwrap();
            let before: usize = catalog.gpus.iter().map(|g| g.offers.len()).sum();
            if let Err(e) = catalog.merge_offers_str("f", &source, json, today) {
                let after: usize = catalog.gpus.iter().map(|g| g.offers.len()).sum();
                proptest::prop_assert_eq!(before, after);
                proptest::prop_assert!(e.to_string().starts_with("f"), "{}", e);
            }
        }
    }
}

#[test]
fn the_explain_view_gives_the_offer_date_and_says_stale() {
    let today = parse_day("2026-12-06").unwrap();
    vramfit::dates::pin_today(Some(today));
    let mut catalog = Catalog::embedded().unwrap();
    let row = format!("{HEADER}Sample GPU Co,rtx-3090,1,0.19,hour,no,,2025-06-01\n");
    catalog.merge_offers_str("old.csv", &row, false, today).unwrap();
    let m = catalog.model("llama-3.1-8b").unwrap();
    let sc = vramfit::engine::Scenario::seed_inference(vramfit::engine::WeightPrecision::Bf16).calibrated();
    let p = vramfit::engine::plan(m, &catalog.gpus, &sc, true);
    let g = catalog.gpu_index("rtx-3090").unwrap();
    let o = p.options.iter().find(|o| o.gpu == g && o.count == 1).unwrap();
    let lines = vramfit::present::explain::explain_option(m, &catalog.gpus[g], o, &p, &sc);
    let rent = lines.iter().find(|l| l.starts_with("rent: ")).unwrap();
    assert!(
        rent.starts_with("rent: Sample GPU Co (on-demand): 0.19 USD/hour per card × 1")
            && rent.ends_with("; stale: seen 2025-06-01, over a year ago"),
        "{rent}"
    );
}

/// `gpus --json` marks each offer stale or not, in the order of its offers: the GPU Rent Hub
/// MI300X price seen 2026-09-01 is current on 2026-12-06 and stale on 2028-01-01.
#[test]
fn the_card_list_json_marks_each_offer_stale_or_not() {
    for (today, stale) in [("2026-12-06", false), ("2028-01-01", true)] {
        let out = vramfit()
            .env("VRAMFIT_TODAY", today)
            .args(["gpus", "--search", "mi300x", "--json"])
            .output()
            .unwrap();
        let cards: Value = serde_json::from_slice(&out.stdout).unwrap();
        let card = &cards[0];
        let offers = card["offers"].as_array().unwrap();
        let flags = card["offers_stale"].as_array().unwrap();
        assert_eq!(offers.len(), flags.len());
        let i = offers.iter().position(|o| o["seen"] == "2026-09-01").unwrap();
        assert_eq!(flags[i].as_bool(), Some(stale), "{today}");
    }
}
