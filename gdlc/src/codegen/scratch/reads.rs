//! Which entries of a function's arrays a call may read before it writes them, found by
//! reading its statements in the order they run: an entry written by a statement that always
//! runs before, or under an `if` whose condition reads only the state and holds again where
//! the entry is read, is written; anything else, a loop, a `match` arm, an `if` on a node, is
//! forgotten after it.

use super::{function_body, Entry, Lengths};
use crate::codegen::tokens::{mentions, statements, without_attributes};
use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};

/// How deep calls of parts may nest before the reading gives up.
const MAX_DEPTH: usize = 8;

/// The entries of the arrays of lengths `lengths` that the statements `body` may read before
/// they write them, or `None` when they use the arrays in a way this reading does not follow.
pub(super) fn read_first(body: &TokenStream, lengths: Lengths) -> Option<BTreeSet<Entry>> {
    let mut reader = Reader { lengths, parts: BTreeMap::new(), read_first: BTreeSet::new(), unknown: false, depth: 0 };
    reader.collect_parts(body, false);
    reader.block(body, &mut Written::default(), &[]);
    (!reader.unknown).then_some(reader.read_first)
}

/// The entries surely written where the reading is, each under the facts of the state (the
/// conditions of enclosing `if`s, which read only the state) that held where it was written,
/// and the log of what was added, to forget what a nested block wrote once it is read.
#[derive(Default)]
struct Written {
    under: BTreeMap<Vec<String>, BTreeSet<Entry>>,
    added: Vec<(Vec<String>, Entry)>,
}

impl Written {
    /// Whether `entry` was surely written, given that the facts `holding` hold.
    fn has(&self, entry: Entry, holding: &[String]) -> bool {
        self.under.iter().any(|(facts, entries)| entries.contains(&entry) && facts.iter().all(|f| holding.contains(f)))
    }

    fn add(&mut self, entry: Entry, holding: &[String]) {
        if self.under.entry(holding.to_vec()).or_default().insert(entry) {
            self.added.push((holding.to_vec(), entry));
        }
    }

    /// A mark of what is written now, for [`Written::forget`].
    fn mark(&self) -> usize {
        self.added.len()
    }

    /// Forgets what was written since `mark`.
    fn forget(&mut self, mark: usize) {
        for (facts, entry) in self.added.drain(mark..) {
            if let Some(entries) = self.under.get_mut(&facts) {
                entries.remove(&entry);
            }
        }
    }
}

/// The reading of a function's statements in the order they run.
struct Reader {
    lengths: Lengths,
    /// The bodies of the functions (parts) defined in the function, by name.
    parts: BTreeMap<String, TokenStream>,
    read_first: BTreeSet<Entry>,
    /// Whether the statements use the arrays, or the state `s`, in a way the reading does not
    /// follow.
    unknown: bool,
    depth: usize,
}

impl Reader {
    /// Records the functions defined anywhere in `tokens`.
    fn collect_parts(&mut self, tokens: &TokenStream, call: bool) {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        for (at, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(i) if i == "fn" => {
                    if let (Some(TokenTree::Ident(name)), Some(body)) = (trees.get(at + 1), function_body(&trees, at)) {
                        if let TokenTree::Group(group) = &trees[body] {
                            let again = self.parts.insert(name.to_string(), group.stream()).is_some();
                            self.unknown |= again;
                        }
                    }
                }
                // The state is the same through the function only if no binding hides it: `s`
                // is only read (`s.0[3]`), declared a parameter (`s: &State`) or passed first to
                // a function (`nodes_part_0(s, ...)`), never bound by a pattern or a `let`.
                TokenTree::Ident(i) if i == "s" => {
                    let read = matches!(trees.get(at + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.' || p.as_char() == ':');
                    let passed_first = call && at == 0;
                    self.unknown |= !(read || passed_first);
                }
                TokenTree::Group(group) => {
                    let call = group.delimiter() == Delimiter::Parenthesis
                        && at > 0
                        && matches!(&trees[at - 1], TokenTree::Ident(f) if f.to_string().starts_with(|c: char| c.is_ascii_lowercase()));
                    self.collect_parts(&group.stream(), call);
                }
                _ => {}
            }
        }
    }

    /// Reads the block `tokens` where what it writes may not be written after it.
    fn nested(&mut self, tokens: &TokenStream, written: &mut Written, holding: &[String]) {
        let mark = written.mark();
        self.block(tokens, written, holding);
        written.forget(mark);
    }

    fn block(&mut self, tokens: &TokenStream, written: &mut Written, holding: &[String]) {
        for statement in statements(tokens) {
            self.statement(without_attributes(&statement), written, holding);
        }
    }

    fn statement(&mut self, statement: &[TokenTree], written: &mut Written, holding: &[String]) {
        if let Some((entry, value)) = assignment(statement) {
            self.expression(value, written, holding);
            written.add(entry, holding);
        } else if let Some(TokenTree::Ident(i)) = statement.first() {
            match i.to_string().as_str() {
                "if" => self.branches(statement, written, holding),
                // A function defined here is read where it is called.
                "fn" => {}
                "let" if extends(statement) => {}
                name if self.parts.contains_key(name) => self.call(statement, written, holding),
                _ => self.expression(statement, written, holding),
            }
        } else {
            self.expression(statement, written, holding);
        }
    }

    /// An `if` statement: what its first block writes is written where its condition holds,
    /// when that is a fact of the state; what the rest writes is forgotten.
    fn branches(&mut self, statement: &[TokenTree], written: &mut Written, holding: &[String]) {
        let Some((condition, block, after)) = if_parts(statement) else {
            self.unknown = true;
            return;
        };
        self.expression(condition, written, holding);
        match fact(condition) {
            Some(fact) => {
                let mut facts = holding.to_vec();
                facts.push(fact);
                self.block(&block.stream(), written, &facts);
            }
            None => self.nested(&block.stream(), written, holding),
        }
        match after {
            [] => {}
            [TokenTree::Ident(e), rest @ ..] if e == "else" => match rest {
                [TokenTree::Group(block)] => self.nested(&block.stream(), written, holding),
                _ => {
                    let mark = written.mark();
                    self.statement(rest, written, holding);
                    written.forget(mark);
                }
            },
            _ => self.unknown = true,
        }
    }

    /// The call of a part: its statements run here, on the same arrays.
    fn call(&mut self, statement: &[TokenTree], written: &mut Written, holding: &[String]) {
        let name = statement[0].to_string();
        let arguments = match statement {
            [_, TokenTree::Group(args), TokenTree::Punct(end)]
                if args.delimiter() == Delimiter::Parenthesis && end.as_char() == ';' =>
            {
                args.stream()
            }
            _ => {
                self.unknown = true;
                return;
            }
        };
        if !passes_arrays(&arguments) || self.depth >= MAX_DEPTH {
            self.unknown = true;
            return;
        }
        let Some(body) = self.parts.get(&name).cloned() else { return };
        self.depth += 1;
        self.block(&body, written, holding);
        self.depth -= 1;
    }

    /// Reads the entries `trees` read; what they write is forgotten.
    fn expression(&mut self, trees: &[TokenTree], written: &mut Written, holding: &[String]) {
        let mut at = 0;
        while at < trees.len() {
            match &trees[at] {
                TokenTree::Ident(i) if i == "n" || i == "g" => match indexed(trees, at) {
                    Some(entry) => {
                        self.read(entry, written, holding);
                        at += 1;
                    }
                    None => self.unknown = true,
                },
                TokenTree::Ident(i) if i == "if" => {
                    let Some((condition, block, after)) = if_parts(&trees[at..]) else {
                        self.unknown = true;
                        return;
                    };
                    self.expression(condition, written, holding);
                    let mut facts = holding.to_vec();
                    facts.extend(fact(condition));
                    self.nested(&block.stream(), written, &facts);
                    // Past the block: an `else` goes on as any block of the expression.
                    at = trees.len() - after.len();
                    continue;
                }
                TokenTree::Ident(i) if i == "fn" => {
                    self.unknown = true;
                    return;
                }
                TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                    self.nested(&group.stream(), written, holding);
                }
                TokenTree::Group(group) => {
                    let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                    self.expression(&inner, written, holding);
                }
                _ => {}
            }
            at += 1;
        }
    }

    fn read(&mut self, entry: Entry, written: &Written, holding: &[String]) {
        match self.lengths.of(entry.words) {
            None => self.unknown = true,
            // Past the kept array: an array extended where it is read (see `extends`).
            Some(len) if entry.index as usize >= len => {}
            Some(_) if written.has(entry, holding) => {}
            Some(_) => {
                self.read_first.insert(entry);
            }
        }
    }
}

/// The entry `statement` writes and the value it writes, when it is `n[K] = value;` or
/// `g[K] = value;`.
fn assignment(statement: &[TokenTree]) -> Option<(Entry, &[TokenTree])> {
    let entry = indexed(statement, 0)?;
    match &statement[2..] {
        [TokenTree::Punct(equals), value @ .., TokenTree::Punct(end)]
            if equals.as_char() == '=' && equals.spacing() == Spacing::Alone && end.as_char() == ';' =>
        {
            Some((entry, value))
        }
        _ => None,
    }
}

/// The entry `trees[at..]` names when it is `n[K]` or `g[K]`.
fn indexed(trees: &[TokenTree], at: usize) -> Option<Entry> {
    let words = match trees.get(at)? {
        TokenTree::Ident(i) if i == "n" => false,
        TokenTree::Ident(i) if i == "g" => true,
        _ => return None,
    };
    let Some(TokenTree::Group(index)) = trees.get(at + 1) else { return None };
    let inner: Vec<TokenTree> = index.stream().into_iter().collect();
    match inner.as_slice() {
        [TokenTree::Literal(k)] if index.delimiter() == Delimiter::Bracket => {
            k.to_string().parse().ok().map(|index| Entry { words, index })
        }
        _ => None,
    }
}

/// Whether `statement` extends `n` or `g` into a longer local array, its entries copied (see
/// `nodes.rs`): after it, the entries past the kept array's length are zeroes of the copy's.
fn extends(statement: &[TokenTree]) -> bool {
    match statement {
        [TokenTree::Ident(_), TokenTree::Ident(m), TokenTree::Ident(name), TokenTree::Punct(eq), TokenTree::Group(copy), TokenTree::Punct(end)] => {
            m == "mut"
                && (name == "n" || name == "g")
                && eq.as_char() == '='
                && end.as_char() == ';'
                && copy.stream().to_string().contains("copy_from_slice")
        }
        _ => false,
    }
}

/// Whether the arguments `arguments` of a part's call pass the state and the arrays as the part
/// takes them: `s` first, and the arrays only as `&mut n` and `&mut g`.
fn passes_arrays(arguments: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = arguments.clone().into_iter().collect();
    let mut each = trees.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
    let state_first = matches!(each.next(), Some([TokenTree::Ident(s)]) if s == "s");
    state_first
        && each.all(|argument| match argument {
            [TokenTree::Punct(p), TokenTree::Ident(m), TokenTree::Ident(name)] if p.as_char() == '&' && m == "mut" => {
                name == "n" || name == "g" || !mentions(argument.iter().cloned(), &["n", "g"])
            }
            _ => !mentions(argument.iter().cloned(), &["n", "g"]),
        })
}

/// `condition` as text when it reads only the state `s` (a fact of the state, the same wherever
/// it is tested in the function).
fn fact(condition: &[TokenTree]) -> Option<String> {
    fn of_state(trees: &[TokenTree]) -> bool {
        trees.iter().all(|tree| match tree {
            TokenTree::Ident(i) => i == "s",
            TokenTree::Punct(_) | TokenTree::Literal(_) => true,
            TokenTree::Group(group) => {
                group.delimiter() != Delimiter::Brace && of_state(&group.stream().into_iter().collect::<Vec<_>>())
            }
        })
    }
    (!condition.is_empty() && of_state(condition))
        .then(|| condition.iter().cloned().collect::<TokenStream>().to_string())
}

/// The condition, the first block and what follows it, of the `if` that `trees` begin with.
fn if_parts(trees: &[TokenTree]) -> Option<(&[TokenTree], &Group, &[TokenTree])> {
    let then =
        trees.iter().position(|tree| matches!(tree, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))?;
    let TokenTree::Group(block) = &trees[then] else { return None };
    Some((&trees[1..then], block, &trees[then + 1..]))
}
