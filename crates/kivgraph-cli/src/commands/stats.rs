//! `kivgraph stats [--interval D] [--once] [--json]`: what every kivgraph process of this
//! user costs now — role, resident memory, CPU over the interval, and the generation a
//! server maps — read from `/proc`, so a process counts whether or not it wrote a record.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use kivgraph_config::parse_duration;
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// How long each CPU sample lasts, and how often the table is printed again.
    #[arg(long, value_name = "D", default_value = "2s", value_parser = duration)]
    interval: Duration,
    /// Print one table and exit.
    #[arg(long)]
    once: bool,
    /// One JSON array per sample.
    #[arg(long)]
    json: bool,
}

fn duration(text: &str) -> Result<Duration, String> {
    parse_duration(text).ok_or_else(|| format!("{text:?} is not a duration such as 500ms or 2s"))
}

/// One process, as sampled.
#[derive(Serialize)]
struct ProcessStats {
    pid: u32,
    /// The command it runs: `serve`, `daemon`, `watch`, `index`, …
    role: String,
    rss_mib: f64,
    /// Of one core, over the interval.
    cpu_percent: f64,
    /// The newest generation whose pages it maps (a server's).
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<String>,
    /// For a server that maps none: why (a server maps `CURRENT` at its first query).
    #[serde(skip_serializing_if = "Option::is_none")]
    generation_note: Option<&'static str>,
}

/// What a server mapping no generation is doing.
const NOT_YET_MAPPED: &str = "none mapped yet: a server maps CURRENT at its first query";

/// The roles that answer from a mapped generation.
fn serves(role: &str) -> bool {
    matches!(role, "serve" | "daemon")
}

/// The kivgraph processes of this user: pid → role.
fn kivgraph_processes() -> BTreeMap<u32, String> {
    let uid = unsafe { libc::getuid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return BTreeMap::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != std::process::id())
        .filter_map(|pid| {
            let proc = Path::new("/proc").join(pid.to_string());
            let exe = std::fs::read_link(proc.join("exe")).ok()?;
            let name = exe.file_name()?.to_string_lossy().to_string();
            if name != "kivgraph" && name != "kivgraph (deleted)" {
                return None;
            }
            let status = std::fs::read_to_string(proc.join("status")).ok()?;
            let owner: u32 = field(&status, "Uid:")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()?;
            if owner != uid {
                return None;
            }
            let cmdline = std::fs::read(proc.join("cmdline")).ok()?;
            let role = cmdline
                .split(|b| *b == 0)
                .nth(1)
                .map(|arg| String::from_utf8_lossy(arg).to_string())
                .unwrap_or_default();
            Some((pid, role))
        })
        .collect()
}

fn field<'a>(status: &'a str, name: &str) -> Option<&'a str> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .map(str::trim)
}

/// User and system CPU time of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// The newest generation whose files the process maps.
fn mapped_generation(pid: u32) -> Option<String> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    maps.lines()
        .filter_map(|line| {
            let (_, after) = line.split_once("/generations/")?;
            let id = after.split('/').next()?;
            (id.len() == 6 && id.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_string())
        })
        .max()
}

fn sample(interval: Duration) -> Vec<ProcessStats> {
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let before: BTreeMap<u32, u64> = kivgraph_processes()
        .keys()
        .filter_map(|pid| Some((*pid, cpu_ticks(*pid)?)))
        .collect();
    std::thread::sleep(interval);
    kivgraph_processes()
        .into_iter()
        .filter_map(|(pid, role)| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            let rss_kib: f64 = field(&status, "VmRSS:")?
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            let used = cpu_ticks(pid)?.saturating_sub(*before.get(&pid).unwrap_or(&0));
            let generation = mapped_generation(pid);
            let generation_note = (generation.is_none() && serves(&role)).then_some(NOT_YET_MAPPED);
            Some(ProcessStats {
                pid,
                role,
                rss_mib: (rss_kib / 1024.0 * 10.0).round() / 10.0,
                cpu_percent: ((used as f64 / ticks_per_second) / interval.as_secs_f64() * 1000.0)
                    .round()
                    / 10.0,
                generation,
                generation_note,
            })
        })
        .collect()
}

pub fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    if !cfg!(target_os = "linux") {
        bail!("kivgraph stats reads /proc: it runs on Linux only");
    }
    loop {
        let processes = sample(args.interval);
        if args.json {
            println!("{}", serde_json::to_string(&processes)?);
        } else {
            println!(
                "{:>8} {:<10} {:>9} {:>7} generation",
                "pid", "role", "rss MiB", "cpu %"
            );
            for p in &processes {
                println!(
                    "{:>8} {:<10} {:>9.1} {:>7.1} {}",
                    p.pid,
                    p.role,
                    p.rss_mib,
                    p.cpu_percent,
                    p.generation.as_deref().or(p.generation_note).unwrap_or("-")
                );
            }
        }
        if args.once {
            return Ok(ExitCode::SUCCESS);
        }
    }
}
