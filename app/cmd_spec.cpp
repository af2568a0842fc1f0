// neograde spec lint: what a spec gets wrong that loading alone does not say.
// neograde spec draft: a draft spec from a provider's OpenAPI document, its guesses listed.

#include "commands.hpp"

#include <neograde/core/spec.hpp>
#include <neograde/core/spec_draft.hpp>
#include <neograde/core/spec_lint.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace neograde::app {

namespace {

struct draft_cli {
  std::string openapi, id, kind, out, cite;
};

// Drafts the spec, writes it, prints the guesses and what was left out to stderr, then says
// whether the draft loads and what the lint finds: exit 0 when it loads, 1 when it does not (the
// draft is written all the same, for the author to complete), 2 when there is nothing to draft.
int run_draft(const draft_cli& o) {
  std::error_code ec;
  const openapi_limits limits;
  const auto size = std::filesystem::file_size(o.openapi, ec);
  if (ec) throw usage_error("cannot read " + o.openapi + ": " + ec.message());
  if (size > limits.max_bytes)
    throw usage_error(o.openapi + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(limits.max_bytes) + " read");
  std::ifstream in(o.openapi, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto doc = read_openapi_document(text.str(), limits);
  if (!doc) throw usage_error(o.openapi + ": " + doc.error());
  draft_options options{.id = o.id, .kind = o.kind, .cite = o.cite.empty() ? std::filesystem::path(o.openapi).filename().string() : o.cite};
  auto draft = draft_spec(*doc, options);
  if (!draft) throw usage_error(o.openapi + ": " + draft.error());
  const auto rendered = draft->spec.dump(2) + "\n";
  if (o.out.empty()) {
    std::cout << rendered;
  } else {
    std::ofstream f(o.out, std::ios::binary | std::ios::trunc);
    f << rendered;
    if (!f) throw usage_error("cannot write " + o.out);
  }
  std::cerr << draft->guesses.size() << " guess(es) to confirm (each marked \"draft:\" in the spec):\n";
  for (std::size_t i = 0; i < draft->guesses.size(); ++i)
    std::cerr << "  " << (i + 1) << ". " << draft->guesses[i].pointer << ": " << draft->guesses[i].text << "\n";
  std::cerr << draft->warnings.size() << " thing(s) left out:\n";
  for (const auto& w : draft->warnings) std::cerr << "  warning: " << w.pointer << ": " << w.text << "\n";
  const auto origin = o.out.empty() ? std::string("the draft") : o.out;
  auto loaded = parse_spec(rendered, origin);
  if (!loaded) {
    std::cerr << "the draft does not load: " << loaded.error().what() << "\n";
    return exit_failed;
  }
  int errors = 0, warnings = 0;
  for (const auto& f : lint_spec(*loaded)) (f.severity == lint_finding::level::error ? errors : warnings) += 1;
  std::cerr << "the draft loads; spec lint: " << errors << " error(s), " << warnings << " warning(s) (neograde spec lint "
            << (o.out.empty() ? "FILE" : o.out) << " lists them)\n";
  return exit_ok;
}

}  // namespace

command add_spec(CLI::App& app) {
  auto* spec_cmd = app.add_subcommand("spec", "Work on provider specs: lint, draft");
  spec_cmd->require_subcommand(1);
  auto names = std::make_shared<std::vector<std::string>>();
  auto strict = std::make_shared<bool>(false);
  auto* lint = spec_cmd->add_subcommand(
      "lint",
      "Check specs for what loads but runs wrong: placeholders nothing binds, emulator phase words that are no status, offer "
      "fields at members the documented answer lacks, assumptions without a source (exit 1 on an error)");
  lint->add_option("spec", *names, "Spec names or paths (default: the whole catalogue)");
  lint->add_flag("--strict", *strict, "Warnings fail too");
  auto d = std::make_shared<draft_cli>();
  auto* draft = spec_cmd->add_subcommand(
      "draft",
      "Draft a spec from the provider's OpenAPI 3 or Swagger 2 document (JSON or YAML): every guess is listed on stderr and "
      "marked \"draft:\" in the spec; what cannot be guessed is left out with a warning (exit 1 when the draft does not load yet)");
  draft->add_option("--openapi", d->openapi, "The OpenAPI document")->required();
  draft->add_option("--id", d->id, "provider.id (default: from the document's title)");
  draft->add_option("--kind", d->kind, "provider.kind")
      ->check(CLI::IsMember({"neocloud", "marketplace", "aggregator", "depin", "hyperscaler"}));
  draft->add_option("--out", d->out, "Write the draft here (default: stdout)");
  draft->add_option(
      "--cite", d->cite,
      "The document as a reader can open it, cited in every source: a URL or owner/repo path @commit (default: its file name)");
  return [lint, names, strict, draft, d]() {
    if (draft->parsed()) return run_draft(*d);
    if (!lint->parsed()) return exit_usage;
    std::vector<std::filesystem::path> paths;
    for (const auto& n : *names) {
      auto p = resolve_spec(n);
      if (!p) throw usage_error("no spec named " + n);
      paths.push_back(*p);
    }
    if (names->empty()) paths = catalogue_specs();
    int errors = 0, warnings = 0;
    for (const auto& path : paths) {
      // Read without the load's own lint, so that every finding is listed, not the first error.
      auto spec = load_spec(path, spec_checks::model_only);
      if (!spec) {
        std::cout << path.string() << ": " << spec.error().what() << "\n";
        ++errors;
        continue;
      }
      for (const auto& f : lint_spec(*spec)) {
        const bool error = f.severity == lint_finding::level::error;
        (error ? errors : warnings) += 1;
        std::cout << path.string() << ":" << f.pointer << ": " << (error ? "error" : "warning") << ": " << f.message << "\n";
      }
    }
    std::cout << paths.size() << " spec(s): " << errors << " error(s), " << warnings << " warning(s)\n";
    return errors > 0 || (*strict && warnings > 0) ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app
