//! Coalescing file-system events into batches: a batch opens with the first change, and
//! closes once no change has come for `debounce` or `maximum` after it opened, whichever is
//! first — an editor's atomic save (write a temporary file, rename it over the original)
//! and a `git checkout` rewriting hundreds of files each make one batch. The debounce is the
//! quiet awaited while a file may still be being written: once every write of the batch was
//! seen to finish (the file closed after writing, renamed into place or removed — inotify
//! says so), the batch closes after a settle of 25 ms of quiet instead. A platform that never
//! says a write finished (no close events) waits out the debounce, as does a batch that
//! created a directory, whose first files may be written before its watch exists. A caller
//! waiting for its own saves closes the open batch at once (a flush request, see
//! `kivgraph_store::flush`): every change it made came before its request, so the batch
//! already holds them.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use notify::EventKind;
use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};

/// The quiet that closes a batch whose every write has finished, unless the debounce is
/// shorter: long enough for the tail of one save (a rename after the write, an editor's
/// backup removed), short against a save-to-answer of a few hundred milliseconds.
const FINISHED_WRITES_SETTLE: Duration = Duration::from_millis(25);

/// How long to wait for quiet, and for how long at most.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// The quiet awaited while a write may be going on.
    pub debounce: Duration,
    pub maximum: Duration,
}

impl Window {
    /// The quiet awaited once every write has finished.
    fn settle(&self) -> Duration {
        FINISHED_WRITES_SETTLE.min(self.debounce)
    }
}

/// What arrives on the channel: the paths one event touched, or a failure to watch.
pub type Message = notify::Result<notify::Event>;

/// The changes of one batch.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// When the batch opened: its first change.
    pub opened: Option<Instant>,
    /// Events that belonged to it.
    pub events: usize,
    pub paths: BTreeSet<PathBuf>,
    /// What the watcher reported as failing meanwhile (a lost watch, an overflowed queue).
    pub errors: Vec<String>,
    /// The flush requests that closed it, answered once its pass has ended.
    pub flushes: Vec<PathBuf>,
}

/// What waiting for a batch gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// Changes, coalesced.
    Changes(Batch),
    /// Nothing changed for `idle`: time to reconcile.
    Idle,
    /// Flush requests came with nothing queued: every change sent before them is published.
    Flushed(Vec<PathBuf>),
    /// The watcher is gone.
    Closed,
}

/// Whether the watcher has changes it has not published yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing is queued, and callers are not told yet: time for work nothing waits on. The
    /// queue is looked at again before `Idle`.
    Quiet,
    /// Nothing is queued: every change it was sent is published (or changed nothing read).
    Idle,
    /// A batch opened: a pass will follow.
    Busy,
}

/// What to make of the paths an event names.
pub struct Filter<'a> {
    /// Whether a change there may change what a pass reads.
    pub relevant: &'a dyn Fn(&std::path::Path) -> bool,
    /// Whether a file created there is a flush request.
    pub flush: &'a dyn Fn(&std::path::Path) -> bool,
}

/// Waits up to `idle` for the first relevant change, then gathers the batch it opens.
/// `on_phase` hears `Quiet` when the queue is first found empty, `Idle` when it is found
/// empty after that (never while a change waits in it) and `Busy` when a batch opens.
pub fn next(
    events: &Receiver<Message>,
    window: Window,
    idle: Duration,
    filter: &Filter,
    on_phase: &mut dyn FnMut(Phase),
) -> Next {
    let mut batch = Batch::default();
    let mut writes = Writes::default();
    let started = Instant::now();
    let mut said = None;
    // Until the first relevant change: irrelevant events are dropped, the idle clock runs.
    loop {
        let message = match events.try_recv() {
            Ok(message) => message,
            Err(TryRecvError::Disconnected) => return Next::Closed,
            Err(TryRecvError::Empty) => {
                match said {
                    None => {
                        on_phase(Phase::Quiet);
                        said = Some(Phase::Quiet);
                        continue;
                    }
                    Some(Phase::Quiet) => {
                        on_phase(Phase::Idle);
                        said = Some(Phase::Idle);
                    }
                    Some(_) => {}
                }
                let left = idle.saturating_sub(started.elapsed());
                match events.recv_timeout(left) {
                    Ok(message) => message,
                    Err(RecvTimeoutError::Timeout) => return Next::Idle,
                    Err(RecvTimeoutError::Disconnected) => return Next::Closed,
                }
            }
        };
        match take(&mut batch, &mut writes, message, filter) {
            Taken::Nothing => {}
            Taken::Flush => return Next::Flushed(batch.flushes),
            Taken::Change => {
                batch.opened = Some(Instant::now());
                on_phase(Phase::Busy);
                break;
            }
        }
    }
    let opened = batch.opened.unwrap_or_else(Instant::now);
    let mut quiet_since = Instant::now();
    loop {
        let quiet = if writes.all_finished() {
            window.settle()
        } else {
            window.debounce
        };
        let until_quiet = quiet.saturating_sub(quiet_since.elapsed());
        let until_full = window.maximum.saturating_sub(opened.elapsed());
        let wait = until_quiet.min(until_full);
        if wait.is_zero() {
            return Next::Changes(batch);
        }
        match events.recv_timeout(wait) {
            Ok(message) => match take(&mut batch, &mut writes, message, filter) {
                Taken::Nothing => {}
                Taken::Change => quiet_since = Instant::now(),
                Taken::Flush => return Next::Changes(batch),
            },
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Next::Changes(batch),
        }
    }
}

/// What an event was to the batch.
#[derive(Debug, PartialEq, Eq)]
enum Taken {
    Nothing,
    Change,
    Flush,
}

/// Which of a batch's files may still be being written.
#[derive(Debug, Default)]
struct Writes {
    /// Written (or created) and not yet seen closed, renamed away or removed.
    open: BTreeSet<PathBuf>,
    /// An event that says nothing of a write's end: a created directory, a failure, a kind
    /// this platform does not name. The debounce holds for the batch.
    unsure: bool,
}

impl Writes {
    fn all_finished(&self) -> bool {
        self.open.is_empty() && !self.unsure
    }

    /// What `kind` says of the writes to `paths` (relevant ones only).
    fn note(&mut self, kind: &EventKind, paths: &[PathBuf]) {
        match kind {
            EventKind::Create(CreateKind::Folder) => self.unsure = true,
            EventKind::Create(_)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any | ModifyKind::Other) => {
                self.open.extend(paths.iter().cloned())
            }
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(
                RenameMode::From | RenameMode::To | RenameMode::Both,
            )) => {
                for path in paths {
                    self.open.remove(path);
                }
            }
            EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => {}
            EventKind::Modify(ModifyKind::Name(_)) | EventKind::Any | EventKind::Other => {
                self.unsure = true
            }
        }
    }
}

/// Adds `message` to `batch`.
fn take(batch: &mut Batch, writes: &mut Writes, message: Message, filter: &Filter) -> Taken {
    let event = match message {
        Ok(event) if !event.need_rescan() => event,
        lost => {
            // A failure, or the kernel's event queue overflowing, may hide any change:
            // reconcile as for one.
            batch.errors.push(match lost {
                Err(error) => error.to_string(),
                Ok(_) => "the kernel's queue of file events overflowed and events were lost; \
                          every repository is read again"
                    .to_string(),
            });
            writes.unsure = true;
            batch.events += 1;
            return Taken::Change;
        }
    };
    // Only a new request asks; its removal (by this watcher) is no event to it.
    let (flushes, others): (Vec<PathBuf>, Vec<PathBuf>) =
        event.paths.into_iter().partition(|p| (filter.flush)(p));
    if matches!(event.kind, EventKind::Create(_)) && !flushes.is_empty() {
        batch.flushes.extend(flushes);
        return Taken::Flush;
    }
    let paths: Vec<PathBuf> = others
        .into_iter()
        .filter(|p| (filter.relevant)(p))
        .collect();
    if paths.is_empty() {
        return Taken::Nothing;
    }
    writes.note(&event.kind, &paths);
    // Reading a file, or closing it after writing, is no change to it: the write was.
    if matches!(event.kind, EventKind::Access(_)) {
        return Taken::Nothing;
    }
    batch.events += 1;
    batch.paths.extend(paths);
    Taken::Change
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::mpsc::channel;
    use std::thread;

    use notify::event::{
        AccessKind, AccessMode, CreateKind, DataChange, Flag, ModifyKind, RemoveKind, RenameMode,
    };
    use notify::{Event, EventKind};

    use super::*;

    fn event(kind: EventKind, path: &str) -> Message {
        Ok(Event::new(kind).add_path(PathBuf::from(path)))
    }

    fn window(debounce: u64, maximum: u64) -> Window {
        Window {
            debounce: Duration::from_millis(debounce),
            maximum: Duration::from_millis(maximum),
        }
    }

    fn everything(_: &Path) -> bool {
        true
    }

    fn no_flush(_: &Path) -> bool {
        false
    }

    /// Every change relevant; flush requests under `/state/flush`.
    const ALL: Filter = Filter {
        relevant: &everything,
        flush: &|p: &Path| p.starts_with("/state/flush"),
    };

    #[test]
    fn a_burst_is_one_batch_and_irrelevant_events_open_none() {
        let (send, receive) = channel();
        send.send(event(EventKind::Access(AccessKind::Any), "/r/a.go"))
            .unwrap();
        send.send(event(EventKind::Create(CreateKind::File), "/r/.git/index"))
            .unwrap();
        send.send(event(EventKind::Create(CreateKind::File), "/r/a.go.tmp"))
            .unwrap();
        send.send(event(EventKind::Modify(ModifyKind::Any), "/r/a.go"))
            .unwrap();
        let not_git = |p: &Path| !p.components().any(|c| c.as_os_str() == ".git");
        let mut phases = Vec::new();
        let Next::Changes(batch) = next(
            &receive,
            window(50, 1000),
            Duration::from_secs(5),
            &Filter {
                relevant: &not_git,
                flush: &no_flush,
            },
            &mut |phase| phases.push(phase),
        ) else {
            panic!("a batch")
        };
        // Queued changes were waiting from the start: the watcher was never idle.
        assert_eq!(phases, [Phase::Busy]);
        assert_eq!(batch.events, 2);
        assert_eq!(
            batch.paths.into_iter().collect::<Vec<_>>(),
            [PathBuf::from("/r/a.go"), PathBuf::from("/r/a.go.tmp")]
        );
    }

    /// The batch `next` gathers from `receive` within `window`, every change relevant.
    fn batch_of(receive: &Receiver<Message>, window: Window) -> Batch {
        match next(receive, window, Duration::from_secs(60), &ALL, &mut |_| {}) {
            Next::Changes(batch) => batch,
            other => panic!("a batch, not {other:?}"),
        }
    }

    /// The batch `events` make with a debounce of two seconds, and how long it took to close.
    fn closed_after(events: Vec<Message>) -> (Batch, Duration) {
        let (send, receive) = channel();
        for message in events {
            send.send(message).unwrap();
        }
        let started = Instant::now();
        let batch = batch_of(&receive, window(2_000, 10_000));
        (batch, started.elapsed())
    }

    #[test]
    fn a_finished_atomic_save_closes_after_the_settle_not_the_debounce() {
        let written = |path: &str| {
            vec![
                event(EventKind::Create(CreateKind::File), path),
                event(EventKind::Modify(ModifyKind::Data(DataChange::Any)), path),
                event(
                    EventKind::Access(AccessKind::Close(AccessMode::Write)),
                    path,
                ),
            ]
        };
        let mut save = written("/r/a.go.tmp~");
        save.push(event(
            EventKind::Modify(ModifyKind::Name(RenameMode::From)),
            "/r/a.go.tmp~",
        ));
        save.push(event(
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            "/r/a.go",
        ));
        let (batch, took) = closed_after(save);
        assert!(took < Duration::from_millis(1_000), "{took:?}");
        // Closing a file is no change of its own.
        assert_eq!(batch.events, 4);
        assert_eq!(batch.paths.len(), 2);

        // Written in place, then removed: nothing is left being written either.
        let mut rewritten = written("/r/b.go");
        rewritten.push(event(EventKind::Remove(RemoveKind::File), "/r/c.go"));
        let (_, took) = closed_after(rewritten);
        assert!(took < Duration::from_millis(1_000), "{took:?}");
    }

    #[test]
    fn a_write_not_seen_to_finish_or_a_new_directory_waits_out_the_debounce() {
        let unfinished = vec![
            event(EventKind::Create(CreateKind::File), "/r/a.go"),
            event(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                "/r/a.go",
            ),
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                "/r/b.go",
            ),
        ];
        let new_directory = vec![
            event(EventKind::Create(CreateKind::Folder), "/r/gen"),
            event(EventKind::Create(CreateKind::File), "/r/gen/a.go"),
            event(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                "/r/gen/a.go",
            ),
        ];
        for events in [unfinished, new_directory] {
            let (_, took) = closed_after(events);
            assert!(took >= Duration::from_millis(2_000), "{took:?}");
        }
    }

    #[test]
    fn an_overflowed_event_queue_is_a_change_that_says_so_and_waits_out_the_debounce() {
        let overflow = Ok(Event::new(EventKind::Other).set_flag(Flag::Rescan));
        let (batch, took) = closed_after(vec![overflow]);
        assert!(took >= Duration::from_millis(2_000), "{took:?}");
        assert_eq!(batch.events, 1);
        assert!(batch.errors[0].contains("overflowed"), "{:?}", batch.errors);
    }

    #[test]
    fn a_steady_stream_is_cut_at_the_maximum() {
        let (send, receive) = channel();
        let writer = thread::spawn(move || {
            for i in 0..40 {
                if send
                    .send(event(
                        EventKind::Modify(ModifyKind::Any),
                        &format!("/r/{i}"),
                    ))
                    .is_err()
                {
                    break;
                }
                thread::sleep(Duration::from_millis(10));
            }
        });
        let started = Instant::now();
        let batch = batch_of(&receive, window(50, 150));
        let took = started.elapsed();
        assert!(took < Duration::from_millis(300), "{took:?}");
        assert!(batch.events < 40, "{}", batch.events);
        drop(receive);
        writer.join().unwrap();
    }

    #[test]
    fn quiet_is_idle_and_a_dropped_watcher_is_closed() {
        let (send, receive) = channel::<Message>();
        let wait = |phases: &mut Vec<Phase>| {
            next(
                &receive,
                window(10, 20),
                Duration::from_millis(30),
                &ALL,
                &mut |phase| phases.push(phase),
            )
        };
        let mut phases = Vec::new();
        assert_eq!(wait(&mut phases), Next::Idle);
        assert_eq!(phases, [Phase::Quiet, Phase::Idle]);
        drop(send);
        assert_eq!(wait(&mut Vec::new()), Next::Closed);
    }

    #[test]
    fn a_change_during_the_quiet_work_opens_a_batch_and_idle_is_never_said() {
        let (send, receive) = channel::<Message>();
        let mut phases = Vec::new();
        let next = next(
            &receive,
            window(10, 20),
            Duration::from_secs(5),
            &ALL,
            &mut |phase| {
                if phase == Phase::Quiet {
                    send.send(event(EventKind::Modify(ModifyKind::Any), "/r/a.go"))
                        .unwrap();
                }
                phases.push(phase);
            },
        );
        assert!(matches!(next, Next::Changes(batch) if batch.events == 1));
        assert_eq!(phases, [Phase::Quiet, Phase::Busy]);
    }

    #[test]
    fn a_flush_request_closes_the_open_batch_at_once_and_is_answered_alone_when_none_is_open() {
        let (send, receive) = channel();
        send.send(event(EventKind::Modify(ModifyKind::Any), "/r/a.go"))
            .unwrap();
        send.send(event(
            EventKind::Create(CreateKind::File),
            "/state/flush/7-0",
        ))
        .unwrap();
        let started = Instant::now();
        let batch = batch_of(&receive, window(5_000, 10_000));
        assert!(started.elapsed() < Duration::from_secs(1));
        assert_eq!(batch.flushes, [PathBuf::from("/state/flush/7-0")]);
        assert_eq!(batch.paths.len(), 1);
        // The watcher's own removal of a request is no event; a request with nothing queued
        // is answered by itself.
        send.send(event(
            EventKind::Remove(RemoveKind::File),
            "/state/flush/7-0",
        ))
        .unwrap();
        send.send(event(
            EventKind::Create(CreateKind::File),
            "/state/flush/7-1",
        ))
        .unwrap();
        assert_eq!(
            next(
                &receive,
                window(50, 100),
                Duration::from_secs(60),
                &ALL,
                &mut |_| {}
            ),
            Next::Flushed(vec![PathBuf::from("/state/flush/7-1")])
        );
    }
}
