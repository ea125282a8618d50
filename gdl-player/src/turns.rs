//! The order of one match's PLAYs. The match's mutex would let PLAYs that wait for it in any
//! order, so every PLAY takes a ticket when it arrives and is served in the order of the
//! tickets. A PLAY that arrives cancels the work of the one being answered (the manager has
//! moved on: that reply is late or no longer wanted), and STOP, ABORT or expiry cancel it too.
//! A PLAY that repeats, word for word, one that has not been answered yet (a manager that sent
//! it again on a new connection) is not applied a second time: it gets the same reply.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The tickets of one match.
#[derive(Default)]
pub(crate) struct Turns {
    queue: Mutex<Queue>,
    turn: Condvar,
}

#[derive(Default)]
struct Queue {
    /// The next ticket to give.
    next: u64,
    /// The ticket whose turn it is.
    serving: u64,
    /// Whether the match ended (STOP, ABORT, expiry or a new START under its id).
    ended: bool,
    /// The cancel flag of the latest PLAY.
    cancel: Arc<AtomicBool>,
    /// The latest PLAY: its ticket, its message, and whether it has been answered.
    last: Option<(u64, String, bool)>,
    /// The reply of the latest PLAY answered, by its ticket.
    reply: Option<(u64, Result<String, String>)>,
}

/// One PLAY's place in the order.
pub(crate) struct Ticket {
    number: u64,
    /// The ticket of the PLAY this one repeats.
    repeats: Option<u64>,
    cancel: Arc<AtomicBool>,
}

impl Ticket {
    /// The flag that cancels this PLAY's work.
    pub(crate) fn cancel(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }

    /// Whether this PLAY repeats one not answered when it arrived.
    pub(crate) fn is_repeat(&self) -> bool {
        self.repeats.is_some()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Turns {
    /// Gives a ticket to a PLAY whose message is `message`, cancelling the work of the PLAY
    /// before it unless this one repeats it.
    pub(crate) fn arrive(&self, message: &str) -> Ticket {
        let mut queue = lock(&self.queue);
        let number = queue.next;
        queue.next += 1;
        let repeats = match &queue.last {
            Some((ticket, last, false)) if last == message => Some(*ticket),
            _ => None,
        };
        if repeats.is_none() {
            queue.cancel.store(true, Ordering::Relaxed);
            queue.cancel = Arc::new(AtomicBool::new(queue.ended));
            queue.last = Some((number, message.to_string(), false));
        }
        Ticket { number, repeats, cancel: Arc::clone(&queue.cancel) }
    }

    /// Waits for the turn of `ticket`; `false` when the match ended meanwhile.
    pub(crate) fn wait(&self, ticket: &Ticket) -> bool {
        let mut queue = lock(&self.queue);
        while queue.serving != ticket.number && !queue.ended {
            queue = match self.turn.wait(queue) {
                Ok(queue) => queue,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
        !queue.ended
    }

    /// The reply of the PLAY that `ticket` repeats, when that one was answered.
    pub(crate) fn earlier_reply(&self, ticket: &Ticket) -> Option<Result<String, String>> {
        let queue = lock(&self.queue);
        let repeats = ticket.repeats?;
        queue.reply.as_ref().filter(|(number, _)| *number == repeats).map(|(_, reply)| reply.clone())
    }

    /// Ends the turn of `ticket`, whose reply was `reply` (`None` when it applied nothing), and
    /// gives the turn to the next ticket.
    pub(crate) fn done(&self, ticket: &Ticket, reply: Option<&Result<String, String>>) {
        let mut queue = lock(&self.queue);
        if let Some(reply) = reply.filter(|_| !ticket.is_repeat()) {
            queue.reply = Some((ticket.number, reply.clone()));
            if let Some(last) = queue.last.as_mut().filter(|last| last.0 == ticket.number) {
                last.2 = true;
            }
        }
        queue.serving = queue.serving.max(ticket.number + 1);
        self.turn.notify_all();
    }

    /// Ends the match: the work under way stops, and PLAYs waiting for their turn give up.
    pub(crate) fn end(&self) {
        let mut queue = lock(&self.queue);
        queue.ended = true;
        queue.cancel.store(true, Ordering::Relaxed);
        self.turn.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_play_cancels_the_one_before_and_a_repeat_does_not() {
        let turns = Turns::default();
        let first = turns.arrive("(PLAY m NIL)");
        let repeat = turns.arrive("(PLAY m NIL)");
        assert!(repeat.is_repeat() && !first.cancel.load(Ordering::Relaxed));
        let second = turns.arrive("(PLAY m (a b))");
        assert!(first.cancel.load(Ordering::Relaxed) && !second.cancel.load(Ordering::Relaxed));
        turns.end();
        assert!(second.cancel.load(Ordering::Relaxed));
    }

    #[test]
    fn tickets_are_served_in_order_and_a_repeat_gets_the_earlier_reply() {
        let turns = Arc::new(Turns::default());
        let first = turns.arrive("(PLAY m NIL)");
        let repeat = turns.arrive("(PLAY m NIL)");
        let waiter = {
            let turns = Arc::clone(&turns);
            std::thread::spawn(move || {
                let served = turns.wait(&repeat);
                (served, turns.earlier_reply(&repeat))
            })
        };
        assert!(turns.wait(&first));
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "the second ticket was served before the first was done");
        turns.done(&first, Some(&Ok("noop".to_string())));
        let (served, reply) = waiter.join().unwrap_or((false, None));
        assert!(served);
        assert_eq!(reply, Some(Ok("noop".to_string())));
        // Once answered, the same message is a new step, not a repeat.
        assert!(!turns.arrive("(PLAY m NIL)").is_repeat());
    }
}
