//! The smallest game, written by hand against the runtime's `Game` interface: one role that
//! plays `done` once. `gdlc serve` builds it first so that the runtime every game's binary
//! links is compiled before the first START needs it.

/// The game's one state: whether the role has played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State(bool);

/// The game's one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move;

/// The game.
pub struct Game;

impl ::gdl_runtime::Game for Game {
    type State = State;
    type Move = Move;

    fn num_roles(&self) -> usize {
        1
    }

    fn role_name(&self, _role: usize) -> &str {
        "player"
    }

    fn initial_state(&self) -> State {
        State(false)
    }

    fn legal_moves(&self, state: &State, _role: usize, out: &mut Vec<Move>) {
        out.clear();
        if !state.0 {
            out.push(Move);
        }
    }

    fn next_state(&self, _state: &State, _joint: &[Move]) -> State {
        State(true)
    }

    fn is_terminal(&self, state: &State) -> bool {
        state.0
    }

    fn goal(&self, state: &State, _role: usize) -> Option<u32> {
        state.0.then_some(100)
    }

    fn state_facts(&self, state: &State) -> Vec<String> {
        if state.0 { vec!["played".to_string()] } else { Vec::new() }
    }

    fn move_string(&self, _mv: &Move) -> String {
        "done".to_string()
    }

    fn parse_move(&self, _role: usize, text: &str) -> Option<Move> {
        (text.trim() == "done").then_some(Move)
    }
}
