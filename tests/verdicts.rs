//! Every verdict agrees across views, over the whole catalog: every card in every count,
//! all four methods, three model sizes, both rules. The bar draws what ONE card of the
//! option holds; the footer says what the table says; "cheapest" is the cheapest under the
//! rank; the one-row-per-card view shows the smallest count that fits; `cards_needed`
//! names a count that fits.

use vramfit::catalog::Catalog;
use vramfit::engine::verdict::rank::{SortBy, one_row_per_card, rank_key, rank_options};
use vramfit::engine::{Choice, Convention, Method, Plan, Scenario, WeightPrecision, plan};
use vramfit::tui::states::{fresh_app, render};

const MODELS: [&str; 3] = ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"];

fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    for convention in [Convention::Calibrated, Convention::Seed] {
        for method in Method::ALL {
            let mut sc = match method {
                Method::Inference => Scenario::seed_inference(WeightPrecision::Bf16),
                m => Scenario::seed_training(*m),
            };
            sc.convention = convention;
            for cards in [1, 2, 16, 64] {
                out.push(Scenario { cards, ..sc.clone() });
            }
        }
    }
    out
}

fn each_plan(mut check: impl FnMut(&str, &Scenario, &Plan)) {
    let catalog = Catalog::embedded().unwrap();
    for id in MODELS {
        let model = catalog.model(id).unwrap();
        for sc in scenarios() {
            let p = plan(model, &catalog.gpus, &sc, true);
            check(id, &sc, &p);
        }
    }
}

#[test]
fn each_option_holds_what_its_per_card_breakdown_adds_up_to() {
    let mut options = 0;
    each_plan(|id, sc, p| {
        for o in &p.options {
            // A plan that spills holds on each card what its placement put there.
            let held = match &o.placement {
                Some(placed) if o.spills() => placed.devices[0].bytes,
                _ => p.breakdown_for(o.count).total(),
            };
            assert_eq!(held, o.per_card_bytes, "{id} {sc:?}: {}× card {}", o.count, o.gpu);
            assert_eq!(
                o.free_bytes_per_card,
                o.usable_bytes / f64::from(o.count) - o.per_card_bytes
            );
            assert_eq!(
                o.verdict.is_fit(),
                o.reason.is_none(),
                "a fit has no reason, a no has one"
            );
            options += 1;
        }
    });
    assert!(options > 7_000, "{options} options checked");
}

#[test]
fn cheapest_is_the_minimum_of_the_rank_key_over_fitting_options() {
    each_plan(|id, sc, p| {
        for by in SortBy::ALL {
            let mut options = p.options.clone();
            rank_options(&mut options, *by);
            let ranked = Plan { options, ..p.clone() };
            let fitting: Vec<_> = ranked.options.iter().filter(|o| o.verdict.is_fit()).collect();
            match ranked.best() {
                None => assert!(fitting.is_empty()),
                Some(best) => {
                    let lowest = fitting
                        .iter()
                        .filter_map(|o| rank_key(o, *by))
                        .fold(f64::INFINITY, f64::min);
                    match rank_key(best, *by) {
                        Some(k) => assert_eq!(k, lowest, "{id} {by:?} {sc:?}"),
                        None => assert!(lowest.is_infinite(), "an unpriced pick while a priced one fits"),
                    }
                }
            }
        }
    });
}

#[test]
fn one_row_per_card_shows_the_smallest_count_that_fits() {
    each_plan(|id, sc, p| {
        for i in one_row_per_card(&p.options) {
            let row = &p.options[i];
            let smallest_fit = p
                .options
                .iter()
                .filter(|o| o.gpu == row.gpu && o.verdict.is_fit())
                .map(|o| o.count)
                .min();
            match smallest_fit {
                Some(n) => assert_eq!(row.count, n, "{id} {sc:?} card {}", row.gpu),
                None => assert!(!row.verdict.is_fit()),
            }
        }
        let cards: std::collections::HashSet<usize> = p.options.iter().map(|o| o.gpu).collect();
        assert_eq!(
            one_row_per_card(&p.options).len(),
            cards.len(),
            "one row for every card"
        );
    });
}

#[test]
fn cards_needed_is_a_count_that_fits_or_null() {
    let catalog = Catalog::embedded().unwrap();
    each_plan(|id, sc, p| {
        for o in p.options.iter().filter(|o| !o.verdict.is_fit()) {
            let Some(n) = o.cards_needed else { continue };
            // Plan that count and the same card fits.
            let model = catalog.model(id).unwrap();
            let there = plan(
                model,
                std::slice::from_ref(&catalog.gpus[o.gpu]),
                &Scenario {
                    cards: n,
                    ..sc.clone()
                },
                false,
            );
            assert!(
                there.options[0].verdict.is_fit(),
                "{id} {sc:?}: card {} said to need {n}, which does not fit",
                o.gpu
            );
        }
    });
}

#[test]
fn the_bar_footer_and_breakdown_show_one_card_of_the_target() {
    let mut app = fresh_app("default");
    for id in MODELS {
        app.select_model(id);
        for sc in scenarios().into_iter().filter(|s| s.cards == 1) {
            app.set_scenario(sc);
            let targets: Vec<(usize, u32)> = app
                .plan
                .options
                .iter()
                .step_by(37)
                .map(|o| (o.gpu, o.count))
                .collect();
            for pinned in targets.into_iter().map(Some).chain([None]) {
                app.pin(pinned);
                let o = app.target().unwrap().clone();
                assert_eq!(app.target_breakdown().total(), o.per_card_bytes);
                let screen: String = {
                    let buf = render(&mut app, 160, 48);
                    let area = buf.area;
                    (0..area.height)
                        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
                        .collect()
                };
                let footer = format!(
                    "{:.2} / {:.2} GB per card",
                    o.per_card_bytes / 1e9,
                    o.usable_bytes / f64::from(o.count) / 1e9
                );
                assert!(
                    screen.contains(&footer),
                    "{id}: footer {footer} missing:\n{screen}"
                );
                let word = match o.verdict {
                    vramfit::engine::Verdict::Fits => "✓ fits ┘",
                    vramfit::engine::Verdict::Tight => "! tight ┘",
                    vramfit::engine::Verdict::No => "✗ no ┘",
                };
                assert!(screen.contains(word), "{id}: verdict {word} missing");
                let total = format!("{:.2} GB", o.per_card_bytes / 1e9);
                let line = screen.lines().find(|l| l.contains("│  total")).unwrap();
                assert!(
                    line.contains(&total),
                    "{id}: breakdown total {total} missing:\n{screen}"
                );
            }
        }
    }
}
