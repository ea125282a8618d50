//! Random playouts through the `Game` trait: how many a second one thread makes on a bundled
//! game, and the mean goals they reach. Run it with
//! `cargo run --release -p generated --example playouts [SECONDS]`.

mod connect_four {
    gdl_macros::gdl!("../games/connectFour.kif");
}

use gdl_runtime::{random_playout, rng::Rng, Game, Playout};
use std::time::{Duration, Instant};

fn main() {
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let game = connect_four::Game;
    let start = game.initial_state();
    let (mut rng, mut scratch) = (Rng::seeded(7), Playout::default());
    let mut goals = vec![0; game.num_roles()];
    let mut totals = vec![0u64; game.num_roles()];
    let (mut playouts, mut steps) = (0u64, 0u64);
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs_f64(seconds) {
        steps += random_playout(&game, &start, &mut rng, &mut scratch, &mut goals) as u64;
        for (total, &goal) in totals.iter_mut().zip(&goals) {
            *total += u64::from(goal);
        }
        playouts += 1;
    }
    let elapsed = began.elapsed().as_secs_f64();
    println!("connectFour: {playouts} playouts in {elapsed:.2} s, {:.0} a second", playouts as f64 / elapsed);
    println!("{:.1} steps a playout", steps as f64 / playouts.max(1) as f64);
    for (role, total) in totals.iter().enumerate() {
        println!("{}: mean goal {:.1}", game.role_name(role), *total as f64 / playouts.max(1) as f64);
    }
}
