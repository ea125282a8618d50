//! A GGP player of your own: a strategy written against the `Player` trait, served over HTTP
//! by gdl-player's server to any match manager (ggp-base's GameServer, `gdlc match`) that
//! starts a match of connectFour, under any renaming of its symbols. The strategy here is
//! flat Monte Carlo: every legal move is tried with random playouts until the deadline, and
//! the one of best mean goal is played. Run it with
//! `cargo run --release -p generated --example player [PORT]` (port 9147 by default), then
//! point a manager at it, e.g. `gdlc match games/connectFour.kif http://127.0.0.1:9147 random`.

mod connect_four {
    gdl_macros::gdl!("../games/connectFour.kif");
}

use gdl_player::player::Player;
use gdl_player::rename::Spelling;
use gdl_player::server::{Config, Server};
use gdl_player::session::{GameFactory, GameSession, MatchSession, Start};
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::{random_playout, rng::Rng, Game, Playout};
use std::time::Instant;

/// Flat Monte Carlo: random playouts after each of the role's moves, the others' moves drawn
/// at random, until the deadline.
struct FlatMonteCarlo {
    rng: Rng,
}

impl<G: Game> Player<G> for FlatMonteCarlo {
    fn choose(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) -> Option<G::Move> {
        let mut legal = Vec::new();
        game.all_legal_moves(state, &mut legal);
        let mine = legal.get(role)?.clone();
        let (mut totals, mut counts) = (vec![0u64; mine.len()], vec![0u64; mine.len()]);
        let (mut scratch, mut goals) = (Playout::default(), vec![0; game.num_roles()]);
        let mut k = 0;
        while Instant::now() < deadline && !mine.is_empty() {
            let joint: Vec<G::Move> = legal
                .iter()
                .enumerate()
                .map(|(r, moves)| if r == role { mine[k].clone() } else { moves[self.rng.below(moves.len())].clone() })
                .collect();
            let next = game.next_state(state, &joint);
            random_playout(game, &next, &mut self.rng, &mut scratch, &mut goals);
            totals[k] += u64::from(goals[role]);
            counts[k] += 1;
            k = (k + 1) % mine.len();
        }
        let mean = |i: usize| totals[i] as f64 / counts[i].max(1) as f64;
        let best = (0..mine.len()).max_by(|&a, &b| mean(a).total_cmp(&mean(b)))?;
        Some(mine[best].clone())
    }
}

/// Plays connectFour, recognized in a START up to renaming, with [`FlatMonteCarlo`].
struct Factory {
    rules: Vec<Sx>,
}

impl GameFactory for Factory {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String> {
        let spelling = Spelling::recognize(&self.rules, start.rules).ok_or("this player only plays connectFour")?;
        let player = Box::new(FlatMonteCarlo { rng: Rng::seeded(1) });
        Ok(Box::new(GameSession::new(&connect_four::Game, start.role, spelling, player)?))
    }
}

fn main() -> Result<(), String> {
    let port = std::env::args().nth(1).unwrap_or_else(|| "9147".to_string());
    let rules = kif::parse_all(include_str!("../../games/connectFour.kif"))?;
    let server = Server::bind(&format!("127.0.0.1:{port}"), Config::default())?;
    println!("playing connectFour at http://{}", server.local_addr()?);
    server.serve(&Factory { rules })
}
