//! Criterion benchmarks: one uniformly random playout from the initial state, through the
//! generated code of every bundled game (`cargo bench -p generated`, or
//! `cargo bench -p generated -- connect_four` for one game).

use criterion::{criterion_group, criterion_main, Criterion};
use gdl_runtime::rng::Rng;
use gdl_runtime::{random_playout, Game, Playout};
use std::hint::black_box;
use std::time::Duration;

/// Measures random playouts of `game` under `name`.
fn playouts<G: Game>(c: &mut Criterion, name: &str, game: &G) {
    let mut rng = Rng::seeded(1);
    let mut scratch = Playout::default();
    let initial = game.initial_state();
    let mut goals = vec![0u32; game.num_roles()];
    c.bench_function(&format!("random playout/{name}"), |b| {
        b.iter(|| random_playout(black_box(game), &initial, &mut rng, &mut scratch, &mut goals))
    });
}

fn all_games(c: &mut Criterion) {
    macro_rules! bench_game {
        ($module:ident, $file:expr) => {
            playouts(c, stringify!($module), &generated::games::$module::Game);
        };
    }
    generated::for_each_game!(bench_game);
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = all_games
}
criterion_main!(benches);
