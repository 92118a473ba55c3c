//! A pass's progress at a terminal: an `indicatif` bar per phase (and repository) with its
//! count, rate and time left, each closed when the next phase opens. Pipes get lines or JSON
//! events instead (the command decides).

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kivgraph_engine::Progress;

/// The bar of the phase being drawn.
#[derive(Default)]
pub struct Bars {
    current: Mutex<Option<(String, ProgressBar)>>,
}

impl Bars {
    /// Draws `event`: the bar of its phase moved, or a new bar for a new phase.
    pub fn show(&self, event: &Progress) {
        let label = match &event.repository {
            Some(repository) => format!("index: {} {repository}", event.phase),
            None => format!("index: {}", event.phase),
        };
        let mut current = self.current.lock().expect("progress lock");
        if current.as_ref().is_none_or(|(shown, _)| *shown != label) {
            if let Some((_, bar)) = current.take() {
                bar.finish();
            }
            let bar = ProgressBar::with_draw_target(
                Some(event.total as u64),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:32} {bar:30} {pos:>7}/{len:7} {rate:>9} ETA {eta}",
                )
                .expect("the template is valid")
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{:.0}/s", state.per_sec());
                    },
                ),
            );
            bar.set_prefix(label.clone());
            *current = Some((label, bar));
        }
        if let Some((_, bar)) = current.as_ref() {
            bar.set_length(event.total as u64);
            bar.set_position(event.completed as u64);
        }
    }

    /// Closes the last bar.
    pub fn finish(&self) {
        if let Some((_, bar)) = self.current.lock().expect("progress lock").take() {
            bar.finish();
        }
    }
}
