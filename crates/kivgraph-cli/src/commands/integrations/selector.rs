//! The selector `mcp install` and `skill install` open without `--target`: every client, those
//! this machine has marked `detected` and selected to begin with. `↑`/`↓` or `j`/`k` move,
//! space toggles, `a` selects all, `n` none, Enter confirms (an empty selection is refused),
//! `q` or Esc cancels. It draws on stderr — stdout keeps the command's report — with ANSI
//! only where stderr is a terminal and colour is allowed (`NO_COLOR`); when neither an output
//! nor stdin is a terminal it refuses and asks for `--target`.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::bail;
use console::{Key, Term, style};

use super::clients::Target;

/// What a key did.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Continue,
    Confirmed(Vec<Target>),
    Cancelled,
}

/// The selector's state, apart from any terminal.
pub struct Selector {
    choices: Vec<(Target, bool)>,
    selected: Vec<bool>,
    cursor: usize,
    refused: bool,
}

impl Selector {
    /// `choices`: each client and whether it was detected (and so starts selected).
    pub fn new(choices: Vec<(Target, bool)>) -> Self {
        let selected = choices.iter().map(|(_, detected)| *detected).collect();
        Selector {
            choices,
            selected,
            cursor: 0,
            refused: false,
        }
    }

    pub fn press(&mut self, key: &Key) -> Step {
        self.refused = false;
        let last = self.choices.len().saturating_sub(1);
        match key {
            Key::ArrowUp | Key::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            Key::ArrowDown | Key::Char('j') => self.cursor = (self.cursor + 1).min(last),
            Key::Char(' ') => self.selected[self.cursor] = !self.selected[self.cursor],
            Key::Char('a') => self.selected.iter_mut().for_each(|s| *s = true),
            Key::Char('n') => self.selected.iter_mut().for_each(|s| *s = false),
            Key::Enter => {
                let chosen: Vec<Target> = self
                    .choices
                    .iter()
                    .zip(&self.selected)
                    .filter(|(_, selected)| **selected)
                    .map(|((target, _), _)| *target)
                    .collect();
                if !chosen.is_empty() {
                    return Step::Confirmed(chosen);
                }
                self.refused = true;
            }
            Key::Char('q') | Key::Escape | Key::CtrlC => return Step::Cancelled,
            _ => {}
        }
        Step::Continue
    }

    fn lines(&self, what: &str, ansi: bool) -> Vec<String> {
        let mut lines = vec![format!(
            "{what} (↑/↓ or j/k move, space toggles, a all, n none, Enter confirms, q cancels):"
        )];
        for (index, ((target, detected), selected)) in
            self.choices.iter().zip(&self.selected).enumerate()
        {
            let pointer = if index == self.cursor { ">" } else { " " };
            let mark = if *selected { "[x]" } else { "[ ]" };
            let note = if *detected { "  detected" } else { "" };
            let line = format!("{pointer} {mark} {:<16}{note}", target.name());
            lines.push(if ansi && index == self.cursor {
                style(line).bold().to_string()
            } else {
                line
            });
        }
        if self.refused {
            lines.push("select at least one client, or q to cancel".to_string());
        }
        lines
    }
}

/// Asks which of `targets` to act on (`what` names the action), `detected` saying which
/// this machine has.
pub fn select(what: &str, choices: Vec<(Target, bool)>) -> anyhow::Result<Vec<Target>> {
    let output = Term::stderr();
    let keys_from_terminal = output.is_term() || Term::stdout().is_term();
    if !keys_from_terminal && !std::io::stdin().is_terminal() {
        bail!("interactive selection requires a terminal; pass --target");
    }
    let ansi = output.is_term() && console::colors_enabled_stderr();
    let keys = Term::stdout();
    let mut selector = Selector::new(choices);
    let mut drawn = 0;
    let mut typed = Vec::new();
    loop {
        let lines = selector.lines(what, ansi);
        if ansi {
            output.clear_last_lines(drawn)?;
        }
        let mut out = output.clone();
        for line in &lines {
            writeln!(out, "{line}")?;
        }
        drawn = lines.len();
        let key = if keys_from_terminal {
            if output.is_term() {
                output.read_key()?
            } else {
                keys.read_key()?
            }
        } else {
            // Output redirected, keys typed on stdin a line at a time.
            if typed.is_empty() {
                let mut line = String::new();
                if std::io::stdin().lock().read_line(&mut line)? == 0 {
                    return Ok(Vec::new());
                }
                typed = line
                    .chars()
                    .rev()
                    .map(|c| if c == '\n' { Key::Enter } else { Key::Char(c) })
                    .collect();
            }
            typed.pop().unwrap_or(Key::Enter)
        };
        match selector.press(&key) {
            Step::Continue => {}
            Step::Confirmed(targets) => return Ok(targets),
            Step::Cancelled => return Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selector() -> Selector {
        Selector::new(vec![
            (Target::ClaudeCode, true),
            (Target::Codex, false),
            (Target::Cursor, true),
        ])
    }

    #[test]
    fn detected_clients_start_selected_and_keys_move_and_toggle() {
        let mut s = selector();
        assert_eq!(s.press(&Key::Char('j')), Step::Continue);
        assert_eq!(s.press(&Key::Char(' ')), Step::Continue);
        assert_eq!(s.press(&Key::ArrowDown), Step::Continue);
        assert_eq!(s.press(&Key::Char(' ')), Step::Continue);
        assert_eq!(
            s.press(&Key::Enter),
            Step::Confirmed(vec![Target::ClaudeCode, Target::Codex])
        );
        // The cursor stops at either end.
        let mut s = selector();
        for _ in 0..5 {
            s.press(&Key::ArrowUp);
        }
        s.press(&Key::Char(' '));
        assert_eq!(s.press(&Key::Enter), Step::Confirmed(vec![Target::Cursor]));
    }

    #[test]
    fn all_none_an_empty_confirmation_refused_and_cancel() {
        let mut s = selector();
        s.press(&Key::Char('a'));
        assert_eq!(
            s.press(&Key::Enter),
            Step::Confirmed(vec![Target::ClaudeCode, Target::Codex, Target::Cursor])
        );
        let mut s = selector();
        s.press(&Key::Char('n'));
        assert_eq!(s.press(&Key::Enter), Step::Continue);
        assert!(
            s.lines("Register", false)
                .last()
                .unwrap()
                .contains("at least one")
        );
        assert_eq!(s.press(&Key::Escape), Step::Cancelled);
        assert_eq!(selector().press(&Key::Char('q')), Step::Cancelled);
    }

    #[test]
    fn the_plain_drawing_marks_the_cursor_the_selection_and_what_was_detected() {
        let lines = selector().lines("Register kivgraph with", false);
        assert_eq!(
            lines[1..],
            [
                "> [x] claude-code       detected",
                "  [ ] codex           ",
                "  [x] cursor            detected",
            ]
        );
        assert!(!lines.concat().contains('\u{1b}'));
    }
}
