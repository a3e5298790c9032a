// The meadow-mind command line (meadow/runtime/cli.hpp). Exit codes: 0 success, 1 failed exam or
// check, 2 bad usage or input, 3 a broken model (meadow::ModelError: non-finite logits).
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/cli.hpp"
#include "util/printable.hpp"

namespace meadow {

int run_cli(int argc, char** argv) {
  CLI::App app{"meadow-mind: a language-rule decision mind"};
  app.require_subcommand(1);
  // Each group registers here; keep one line per group.
  meadow::cli::add_model_commands(app);
  meadow::cli::add_encoder_commands(app);
  meadow::cli::add_env_commands(app);
  meadow::cli::add_mind_commands(app);
  meadow::cli::add_task_commands(app);
  meadow::cli::add_reading_command(app);
  meadow::cli::add_reader_commands(app);
  meadow::cli::add_pull_command(app);
  meadow::cli::add_text_commands(app);
  meadow::cli::add_latency_command(app);
  meadow::cli::add_serve_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const meadow::cli::Exit& e) {
    return e.code;
  } catch (const meadow::ExamFailed& e) {
    // Error texts may quote user and file text: control bytes are shown escaped, never sent
    // to the terminal (util/printable.hpp).
    std::fprintf(stderr, "%s\n", meadow::util::printable(e.what(), true).c_str());
    return 1;
  } catch (const meadow::ModelError& e) {  // the model's fault, not the user's
    std::fprintf(stderr, "error: %s\n", meadow::util::printable(e.what()).c_str());
    return 3;
  } catch (const meadow::Error& e) {
    std::fprintf(stderr, "error: %s\n", meadow::util::printable(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", meadow::util::printable(e.what()).c_str());
    return 2;
  }
  return 0;
}

}  // namespace meadow
