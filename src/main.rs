//! The `amalgam` program: the command line of [`amalgam::cli`].

fn main() -> std::process::ExitCode {
    amalgam::cli::run(std::env::args_os().skip(1).collect())
}
