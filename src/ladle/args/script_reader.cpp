// script_reader.cpp: a launch script read as bash runs it.
#include "ladle/args/script_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "ladle/args/sandbox.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/shell_quote.hpp"
#include "ladle/util/text.hpp"

namespace ladle::args {
namespace fs = std::filesystem;

namespace {

// Environment variables bash itself sets; not the script's switches.
const std::set<std::string> kShellVariables = {"PWD", "OLDPWD", "SHLVL", "_"};
// Characters a flag is written between in a script.
constexpr std::string_view kBefore = " \t\"'(=";
constexpr std::string_view kAfter = " \t\"')=\\";
// Words of a call shown in a message.
constexpr size_t kShownWords = 6;

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_python_name(const std::string& name) {
  return name == "python" || (name.starts_with("python3") &&
                              name.find_first_not_of("python3.0123456789") == std::string::npos);
}

// Whether a recorded call may launch training: an interpreter running a file or module, or a
// launcher the reader unwraps. `python3 -c ...` or `pip install` is no launch.
bool may_launch(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string& name = argv[0];
  if (is_python_name(name)) {
    for (size_t i = 1; i < argv.size(); ++i) {
      const std::string& a = argv[i];
      if (a == "-c" || a == "-V" || a == "--version" || a == "-h" || a == "--help") return false;
      if (a == "-m") return i + 1 < argv.size() && argv[i + 1] != "pip" && argv[i + 1] != "venv";
      if (!a.starts_with("-")) return true;
    }
    return false;
  }
  return name == "torchrun" || name == "ray" || name == "srun" || name == "mpirun" || name == "mpiexec" ||
         name == "deepspeed" || name == "uv" || name == "numactl" || name == "nsys" || name == "accelerate";
}

// A call as one short line for messages.
std::string shown(const RecordedCall& call) {
  std::vector<std::string> words;
  for (size_t i = 0; i < call.argv.size() && i < kShownWords; ++i) words.push_back(call.argv[i]);
  std::string text = util::join(words, " ");
  if (call.argv.size() > kShownWords) text += " ...";
  return text;
}

// How ladle names a file: relative to the working folder when inside it.
std::string display_path(const std::string& abs) {
  std::error_code ec;
  const fs::path p = fs::path(abs).lexically_normal();
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    const fs::path rel = p.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return p.string();
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

// Where a word of a launch is written: the files bash read, searched for the flag.
class Locator {
 public:
  Locator(const std::vector<std::string>& sources) {
    for (const std::string& s : sources) {
      std::error_code ec;
      if (!fs::is_regular_file(s, ec)) continue;
      try {
        lines_[s] = util::split(util::read_file(s, limits::FileKind::launch_script), '\n');
        order_.push_back(s);
      } catch (const Error&) {
        // A file too large to read: its words keep the calling line.
      }
    }
  }

  struct Place {
    std::string file;
    int line = 0;
    int col = 0;
  };

  Place find(const std::string& token, const std::vector<std::string>& values, const RecordedCall& call) const {
    struct Hit {
      std::string file;
      int line;
      int col;
      bool value;
    };
    std::vector<Hit> hits;
    for (const std::string& file : order_) {
      const std::vector<std::string>& lines = lines_.at(file);
      for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        for (size_t at = l.find(token); at != std::string::npos; at = l.find(token, at + 1)) {
          const size_t end = at + token.size();
          if ((at > 0 && kBefore.find(l[at - 1]) == std::string_view::npos) ||
              (end < l.size() && kAfter.find(l[end]) == std::string_view::npos)) {
            continue;
          }
          bool value = values.empty();
          if (!value) {
            const std::string rest = l.substr(end) + (i + 1 < lines.size() ? " " + lines[i + 1] : std::string());
            value = rest.find(values.front()) != std::string::npos;
          }
          hits.push_back(Hit{file, static_cast<int>(i) + 1, static_cast<int>(at) + 1, value});
          break;
        }
      }
    }
    const auto pick = [&](bool need_value) -> const Hit* {
      const Hit* best = nullptr;
      for (const Hit& h : hits) {  // the caller's file, the last line up to the call
        if (need_value && !h.value) continue;
        if (same_file(h.file, call.file) && h.line <= call.line && (!best || h.line > best->line)) best = &h;
      }
      if (best) return best;
      for (const Hit& h : hits) {  // the caller's file, a continuation line of the call
        if (need_value && !h.value) continue;
        if (same_file(h.file, call.file) && h.line > call.line && (!best || h.line < best->line)) best = &h;
      }
      if (best) return best;
      for (const Hit& h : hits) {  // another file bash read (a sourced model file)
        if (need_value && !h.value) continue;
        if (!same_file(h.file, call.file)) return &h;
      }
      return nullptr;
    };
    const Hit* hit = pick(true);
    if (!hit) hit = pick(false);
    if (hit) return Place{hit->file, hit->line, hit->col};
    return Place{call.file, call.line, 0};
  }

 private:
  std::map<std::string, std::vector<std::string>> lines_;
  std::vector<std::string> order_;
};

// --- variables the script reads that nothing sets at plan time ----------------------------------
// bash expands such a variable to '' (or drops the word), so the launch would record
// `--data-path ''` where the job means "$DATA_PATH" at run time. Each gets a sentinel value
// (sandbox.hpp: unset_sentinel) and the words that hold one are written back as the expansion
// (`$DATA_PATH`, unresolved), as the static reader keeps them.
//
// Which variables: those that a word of a launch expands and the static reader could not resolve
// (open `$NAME`/`${NAME}` pieces of its unresolved words), less
//  - what --env gives, and what bash or the sandbox sets itself (PATH, HOME, RANDOM, BASH_*, ...):
//    those have values;
//  - any the script reads with a default or an alternative (`${X:-d}`, `${X-d}`, `${X:=d}`,
//    `${X:+w}`, `${X:?}`): unset, bash takes the default, which is what the job means when the
//    cluster does not set it;
//  - any the script tests for being set or empty (`-z "$X"`, `-n "$X"`, `-v X`, `${#X}`,
//    `[[ $X ]]`, `"$X" == ""`): a sentinel would flip the branch (`if [ -z "$SLURM_JOB_ID" ]; then
//    NNODES=1; else NNODES=$SLURM_NNODES; fi`), so the script runs the branch it runs when unset,
//    as before. SLURM_*, MASTER_* and the like get no other rule: when the script only passes them
//    on (`--master-addr $MASTER_ADDR`), the cluster gives them at run time, and the word says so.
// A ladle job declares its inputs (`need NAME KIND WHAT`); each gets a sentinel of its kind (a
// folder, a file, a data prefix), so its preamble passes and it runs to its launch as the user's job does.

// The variables given sentinels (SandboxOptions::unset), and those the script writes `${NAME}`
// rather than `$NAME`, for the words written back.
struct Sentinels {
  std::vector<std::pair<std::string, std::string>> unset;
  std::set<std::string> braced;
};

// Names bash (or the sandbox) sets; never the script's inputs.
bool shell_provided(const std::string& name) {
  static const std::set<std::string> kNames = {
      "PATH",   "HOME",    "PWD",     "OLDPWD",   "SHLVL",    "RANDOM",  "SRANDOM", "SECONDS", "LINENO",
      "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "UID",     "EUID",    "PPID",    "IFS",     "GROUPS",
      "FUNCNAME", "EPOCHSECONDS", "EPOCHREALTIME", "OPTARG", "OPTIND", "OPTERR", "REPLY", "PIPESTATUS",
      "COLUMNS", "LINES",  "HISTFILE", "HISTSIZE", "PS1",     "PS2",     "PS3",     "PS4",     "USER",
      "LOGNAME", "SHELL",  "LANG",    "_"};
  return kNames.count(name) > 0 || name.starts_with("BASH") || name.starts_with("COMP_") ||
         name.starts_with("__LADLE_") || name.starts_with("__ladle_");
}

// Names `text` reads with a default or tests for being set: never given a sentinel.
std::set<std::string> defaulted_or_tested(const std::string& text) {
  static const std::vector<std::regex> kForms = {
      std::regex(R"(\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=?+])"),
      std::regex(R"(-[zn][ \t]+["']?\$\{?([A-Za-z_][A-Za-z0-9_]*))"),
      std::regex(R"(-v[ \t]+["']?([A-Za-z_][A-Za-z0-9_]*))"),
      std::regex(R"(\$\{#([A-Za-z_][A-Za-z0-9_]*)\})"),
      std::regex(R"(\[\[?[ \t]+["']?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?["']?[ \t]+(\]|[!=]=?[ \t]+(""|'')))"),
      std::regex(R"((""|'')[ \t]+[!=]=?[ \t]+["']?\$\{?([A-Za-z_][A-Za-z0-9_]*))"),
  };
  std::set<std::string> out;
  for (size_t k = 0; k < kForms.size(); ++k) {
    for (std::sregex_iterator it(text.begin(), text.end(), kForms[k]), end; it != end; ++it) {
      out.insert((*it)[k + 1 == kForms.size() ? 2 : 1].str());
    }
  }
  return out;
}

// The inputs a ladle job declares (`need NAME KIND WHAT` after its `need() {` function).
std::vector<std::pair<std::string, std::string>> declared_inputs(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  if (text.find("\nneed() {") == std::string::npos) return out;
  static const std::regex kNeed(R"((^|\n)need ([A-Za-z_][A-Za-z0-9_]*) ([a-z]+) )");
  for (std::sregex_iterator it(text.begin(), text.end(), kNeed), end; it != end; ++it) {
    out.emplace_back((*it)[2].str(), (*it)[3].str());
  }
  return out;
}

// The variables to give sentinels, with the kind of each (sandbox.hpp: SandboxOptions::unset).
Sentinels unset_inputs(const std::string& text, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& env) {
  Sentinels sentinels;
  std::vector<std::pair<std::string, std::string>>& out = sentinels.unset;
  const auto given = [&](const std::string& name) {
    return std::any_of(env.begin(), env.end(), [&](const auto& e) { return e.first == name; }) ||
           shell_provided(name) ||
           std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.first == name; });
  };
  for (const auto& [name, kind] : declared_inputs(text)) {
    if (!given(name)) out.emplace_back(name, kind);
  }
  args::LaunchArgs read;
  try {
    read = args::parse_launch_args(text, path);
  } catch (const Error&) {
    return sentinels;  // bash reads what the static reader cannot; its own errors say why
  }
  const std::set<std::string> skip = defaulted_or_tested(text);
  const std::vector<std::string> lines = util::split(text, '\n');
  static const std::regex kReference(R"(\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)\})");
  // The static reader keeps an unresolved word's text as written: its `$NAME` and `${NAME}`. A
  // name the script sets itself (`NNODES=$SLURM_NNODES`, in a branch the reader does not follow)
  // gets no sentinel: a variable bash starts with is exported, so the launch would record it as
  // the script's environment. The names its assignments read get theirs.
  std::set<std::string> seen;
  std::function<void(const std::string&)> add = [&](const std::string& word) {
    for (std::sregex_iterator it(word.begin(), word.end(), kReference), end; it != end; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (given(name) || skip.count(name) || !seen.insert(name).second) continue;
      const std::regex assignment("^[ \t]*(export[ \t]+|local[ \t]+|readonly[ \t]+|declare[ \t]+(-[A-Za-z]+[ \t]+)*)?" +
                                  name + "\\+?=(.*)$");
      bool assigned = false;
      for (const std::string& l : lines) {
        std::smatch m;
        if (!std::regex_match(l, m, assignment)) continue;
        assigned = true;
        add(m[3].str());
      }
      if (!assigned) out.emplace_back(name, "any");
    }
  };
  const auto add_arg = [&](const args::LaunchArg& a) {
    if (!a.unresolved) return;
    add(a.flag);
    for (const std::string& v : a.values) add(v);
  };
  for (const args::LaunchArg& a : read.args) add_arg(a);
  for (const args::Launch& l : read.setup) {
    for (const args::LaunchArg& a : l.launcher_args) add_arg(a);
  }
  for (const args::Launch& l : read.launches) {
    for (const args::LaunchExport& e : l.env) {
      if (e.unresolved) add(e.value);
    }
  }
  for (const args::LaunchExport& e : read.exports) {
    if (e.unresolved) add(e.value);
  }
  // Braced where the script never writes the bare `$NAME`.
  for (const auto& [name, kind] : out) {
    if (text.find("${" + name + "}") == std::string::npos) continue;
    const std::regex bare("\\$" + name + "([^A-Za-z0-9_]|$)");
    if (!std::regex_search(text, bare)) sentinels.braced.insert(name);
  }
  return sentinels;
}

// Whether `name` is assigned anywhere in `lines` (NAME=, export/local/readonly/declare NAME=, a
// `for NAME in` loop, a `read ... NAME`): the script gives it its value itself.
bool assigned_in(const std::string& name, const std::vector<std::string>& lines) {
  const std::regex forms(R"((^|[;&|({ \t])((export|local|readonly|declare)[ \t]+(-[A-Za-z]+[ \t]+)*)?)" + name +
                         R"((\+?=|\[)|\bfor[ \t]+)" + name + R"([ \t]+in\b|\bread\b[^;]*[ \t])" + name +
                         R"(([ \t;]|$))");
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return std::regex_search(l, forms); });
}

// The variables only the files the script sources or runs read (a model file's `--load
// $MODEL_DIR`), which unset_inputs cannot see in the script's own text: every `$NAME` or `${NAME}`
// of those files (comments aside) that nothing gives (--env, bash, the sandbox), nothing assigns
// in any file bash read, and no file reads with a default or tests for being set, as unset_inputs
// rules for the script's own words. Adds them to `sentinels` (kind "any"); returns whether it
// added any. `sources`: the files bash read (Recording::sources, absolute).
bool add_sourced_inputs(const std::vector<std::string>& sources, const std::string& path, const std::string& text,
                        const std::vector<std::pair<std::string, std::string>>& env, Sentinels& sentinels) {
  std::error_code ec;
  const fs::path top = fs::weakly_canonical(fs::absolute(path, ec), ec);
  std::vector<std::string> texts;
  for (const std::string& source : sources) {
    if (source.starts_with("/tmp/.ladle/")) continue;  // the sandbox's own
    if (fs::weakly_canonical(source, ec) == top || !fs::is_regular_file(source, ec)) continue;
    try {
      texts.push_back(util::read_file(source, limits::FileKind::launch_script));
    } catch (const Error&) {
      continue;  // bash read it; ladle reads it no further than bash said
    }
  }
  if (texts.empty()) return false;
  std::string all = text;
  for (const std::string& t : texts) all += "\n" + t;
  const std::set<std::string> skip = defaulted_or_tested(all);
  const std::vector<std::string> lines = util::split(all, '\n');
  static const std::regex kReference(R"(\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)\})");
  std::vector<std::pair<std::string, std::string>>& out = sentinels.unset;
  const size_t before = out.size();
  std::set<std::string> seen;
  for (const std::string& t : texts) {
    for (const std::string& line : util::split(t, '\n')) {
      const std::string_view code = util::trim(line);
      if (code.starts_with("#")) continue;
      for (std::sregex_iterator it(line.begin(), line.end(), kReference), end; it != end; ++it) {
        const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
        if (!seen.insert(name).second || shell_provided(name) || skip.count(name)) continue;
        if (std::any_of(env.begin(), env.end(), [&](const auto& e) { return e.first == name; })) continue;
        if (std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.first == name; })) continue;
        if (assigned_in(name, lines)) continue;
        out.emplace_back(name, "any");
      }
    }
  }
  for (size_t i = before; i < out.size(); ++i) {
    const std::string& name = out[i].first;
    if (all.find("${" + name + "}") == std::string::npos) continue;
    const std::regex bare("\\$" + name + "([^A-Za-z0-9_]|$)");
    if (!std::regex_search(all, bare)) sentinels.braced.insert(name);
  }
  return out.size() > before;
}

// Writes the sentinels in `text` back as the expansions they stand for: $NAME, or ${NAME} where
// the script writes it so or a name character follows. `names`: the variables given sentinels. Returns whether it wrote any.
bool unsentinel(std::string& text, const Sentinels& names) {
  const std::string prefix = kUnsetFolder;
  bool changed = false;
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
    const size_t start = at + prefix.size();
    const std::string* best = nullptr;
    for (const auto& [name, kind] : names.unset) {
      if (text.compare(start, name.size(), name) == 0 && (!best || name.size() > best->size())) best = &name;
    }
    if (!best) {
      at = start;
      continue;
    }
    const size_t end = start + best->size();
    const bool braced = names.braced.count(*best) ||
                        (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'));
    const std::string written = braced ? "${" + *best + "}" : "$" + *best;
    text.replace(at, end - at, written);
    at += written.size();
    changed = true;
  }
  return changed;
}

std::string unsentinel_copy(std::string text, const Sentinels& names) {
  unsentinel(text, names);
  return text;
}

// The words of a recorded launch that hold sentinels, written back as the static reader writes
// an expansion of an unset variable: the text as written, its shell form the variable expanded in
// double quotes, unresolved.
void unsentinel(args::LaunchArg& a, const Sentinels& names) {
  const bool word_by_word = a.shell.size() == a.values.size() + 1;
  if (unsentinel(a.flag, names)) {
    a.unresolved = true;
    if (word_by_word) a.shell[0] = args::variable_shell_word(a.flag);
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!unsentinel(a.values[i], names)) continue;
    a.unresolved = true;
    if (word_by_word) a.shell[i + 1] = args::variable_shell_word(a.values[i]);
  }
}

void unsentinel(args::LaunchExport& e, const Sentinels& names) {
  if (!unsentinel(e.value, names)) return;
  e.unresolved = true;
  e.shell = args::variable_shell_word(e.value);
}

void unsentinel(args::LaunchArgs& l, const Sentinels& names) {
  if (names.unset.empty()) return;
  for (args::LaunchArg& a : l.args) unsentinel(a, names);
  for (args::LaunchArg& a : l.unset_overrides) unsentinel(a, names);
  for (args::LaunchExport& e : l.exports) unsentinel(e, names);
  for (std::vector<args::Launch>* list : {&l.launches, &l.setup}) {
    for (args::Launch& launch : *list) {
      for (args::LaunchArg& a : launch.launcher_args) unsentinel(a, names);
      for (args::LaunchArg& a : launch.args) unsentinel(a, names);
      for (args::LaunchExport& e : launch.env) unsentinel(e, names);
    }
  }
  for (args::RunTimeWord& w : l.run_time_words) unsentinel(w.word, names);
}

// The environment a call has that the sandbox did not start bash with: what the script set.
std::vector<std::pair<std::string, std::string>> script_env(const RecordedCall& call, const Recording& rec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : call.env) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    if (kShellVariables.count(k)) continue;
    const auto it = std::find_if(rec.initial_env.begin(), rec.initial_env.end(),
                                 [&](const auto& e) { return e.first == k; });
    if (it != rec.initial_env.end() && it->second == v) continue;
    out.emplace_back(k, v);
  }
  return out;
}

// The reading's files: "" for the script itself, else as ladle names them.
std::string file_name(const std::string& abs, const std::string& script) {
  if (abs.empty() || same_file(abs, script)) return "";
  // A batch script given to sbatch on standard input lives only inside the sandbox.
  if (abs.starts_with("/tmp/.ladle/out/sbatch.")) return "(sbatch's standard input)";
  return display_path(abs);
}

// The launches of the recorded calls, read by the script reader from the calls written as
// commands: one reader unwraps launchers whether ladle reads a script's text or what bash ran.
args::LaunchArgs launches_of(const Recording& rec, const std::string& path,
                               const Sentinels& unset) {
  std::string text;
  std::vector<std::pair<int, const RecordedCall*>> starts;  // first synthetic line of each call
  int line = 1;
  for (const RecordedCall& call : rec.calls) {
    if (!may_launch(call.argv)) continue;
    std::vector<std::string> words;
    for (const std::string& a : call.argv) words.push_back(util::shell_quote(a, util::ShellQuoting::posix));
    const std::string command = util::join(words, " ") + "\n";
    starts.emplace_back(line, &call);
    line += static_cast<int>(std::count(command.begin(), command.end(), '\n'));
    text += command;
  }
  args::LaunchArgs read = args::parse_launch_args(text, path);
  unsentinel(read, unset);
  const auto call_at = [&](int synthetic) -> const RecordedCall* {
    const RecordedCall* found = nullptr;
    for (const auto& [start, call] : starts) {
      if (start <= synthetic) found = call;
    }
    return found;
  };
  const Locator locator(rec.sources);
  const auto place = [&](args::LaunchArg& a, const RecordedCall& call) {
    const std::string token = a.spelled.empty() ? a.flag : a.spelled;
    const Locator::Place p = a.placeholder ? Locator::Place{call.file, call.line, 0} : locator.find(token, a.values, call);
    a.file = file_name(p.file, path);
    a.line = p.line;
    a.col = p.col;
  };
  args::LaunchArgs out;
  const RecordedCall* first = nullptr;
  for (const args::Launch& l : read.launches) {
    if (!l.entry.starts_with("python ")) continue;  // `srun bash inner.sh`: its launches are recorded on their own
    if (l.args.empty()) continue;  // a helper run for its output (`$(python3 model_args.py NAME)`), no training
    const RecordedCall* call = call_at(l.line);
    if (!call) continue;
    args::Launch kept = l;
    kept.line = call->line;
    kept.file = file_name(call->file, path);
    for (args::LaunchArg& a : kept.launcher_args) place(a, *call);
    for (args::LaunchArg& a : kept.args) {
      place(a, *call);
      a.command = out.launches.size();
    }
    for (args::LaunchExport& e : kept.env) e.line = call->line;  // runtime-env vars: the submit's line
    // The environment the script set: the first launch's as exports, another launch's differences
    // from it as its own.
    const auto env = script_env(*call, rec);
    if (!first) {
      first = call;
      for (const auto& [k, v] : env) {
        const Locator::Place p = locator.find(k, {}, *call);
        out.exports.push_back({k, v, p.line, false, "export", util::shell_quote(v)});
      }
    } else {
      for (const auto& entry : env) {
        const std::string& k = entry.first;
        const std::string& v = entry.second;
        const auto same = std::find_if(out.exports.begin(), out.exports.end(),
                                       [&](const args::LaunchExport& e) { return e.name == k && e.value == v; });
        if (same == out.exports.end()) kept.env.push_back({k, v, call->line, false, "prefix", util::shell_quote(v)});
      }
    }
    out.commands.push_back(kept.command);
    out.args.insert(out.args.end(), kept.launcher_args.begin(), kept.launcher_args.end());
    out.args.insert(out.args.end(), kept.args.begin(), kept.args.end());
    out.launches.push_back(std::move(kept));
  }
  for (const args::Launch& s : read.setup) {
    const RecordedCall* call = call_at(s.line);
    if (!call) continue;
    args::Launch kept = s;
    kept.line = call->line;
    kept.file = file_name(call->file, path);
    for (args::LaunchArg& a : kept.launcher_args) place(a, *call);
    out.setup.push_back(std::move(kept));
  }
  out.unset_overrides = read.unset_overrides;
  unsentinel(out, unset);  // the environment the script set from an unset variable
  return out;
}

// Rejects what is no shell script before running it.
void require_shell_script(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw_input(SourceLocation{path}, "no such file (expected a launch script)");
  if (!fs::is_regular_file(path, ec)) throw_input(SourceLocation{path}, "not a file (expected a launch script)");
  const std::string text = util::read_file(path, limits::FileKind::launch_script);
  if (text.find('\0') != std::string::npos) {
    throw_input(SourceLocation{path, 1, 1}, "not a shell script: it holds binary data (expected a launch script)");
  }
  const std::string first = text.substr(0, text.find('\n'));
  if (first.starts_with("#!")) {
    const std::string interpreter(util::trim(first.substr(2)));
    const std::vector<std::string> words = util::split(interpreter, ' ');
    std::string program = base_name(words.empty() ? interpreter : words.front());
    if (program == "env") {
      for (size_t i = 1; i < words.size(); ++i) {
        if (!words[i].empty() && !words[i].starts_with("-")) {
          program = base_name(words[i]);
          break;
        }
      }
    }
    if (program != "bash" && program != "sh") {
      throw_input(SourceLocation{path, 1, 1}, "not a shell script: its first line runs '{}' (expected bash or sh)",
                  program);
    }
    return;
  }
  for (std::string_view ext : {".py", ".yaml", ".yml", ".json", ".toml"}) {
    if (path.ends_with(ext)) {
      throw_input(SourceLocation{path, 1, 1}, "not a shell script: a {} file (expected a launch script)", ext.substr(1));
    }
  }
}

// bash's own message about where it stopped (`FILE: line N: MESSAGE`), the last one.
std::optional<std::pair<SourceLocation, std::string>> bash_stop(const std::string& stderr_text,
                                                                 const std::string& path,
                                                                 std::string_view containing = "") {
  static const std::regex kLine(R"(^(.*): line ([0-9]+): (.*)$)");
  std::optional<std::pair<SourceLocation, std::string>> last;
  for (const std::string& l : util::split(stderr_text, '\n')) {
    std::smatch m;
    if (!std::regex_match(l, m, kLine)) continue;
    std::string file = m[1].str();
    if (file.starts_with("/tmp/.ladle/")) continue;  // the stand-ins' own
    if (!containing.empty() && m[3].str().find(containing) == std::string::npos) continue;
    const std::string name = file_name(fs::absolute(file).string(), path);
    last = std::pair{SourceLocation{name.empty() ? path : name, std::stoi(m[2].str()), 0, "script"}, m[3].str()};
  }
  return last;
}

}  // namespace

ScriptReading read_script(const std::string& path, const ScriptOptions& options) {
  require_shell_script(path);
  SandboxOptions so;
  so.script = path;
  so.args = options.args;
  so.env = options.env;
  so.gpus_per_node = options.gpus_per_node;
  so.wall_seconds = options.wall_seconds;
  const std::string text = util::read_file(path, limits::FileKind::launch_script);
  Sentinels sentinels = unset_inputs(text, path, options.env);
  so.unset = sentinels.unset;
  Recording rec = run_sandboxed(so);
  // The files the script sources or runs are known once bash has read them: the variables only
  // they read get sentinels too, and bash runs the script once more with them.
  if (rec.started && add_sourced_inputs(rec.sources, path, text, options.env, sentinels)) {
    so.unset = sentinels.unset;
    rec = run_sandboxed(so);
  }
  ScriptReading out;
  if (!rec.started) {
    out.note = fmt::format("ladle: note: the sandbox could not start ({}); {} is read without running it", rec.why_not,
                           path);
    out.launch = args::parse_launch_args(util::read_file(path, limits::FileKind::launch_script), path);
    return out;
  }
  out.ran_bash = true;
  for (const std::string& s : rec.sources) {
    const std::string name = file_name(s, path);
    out.sources.push_back(name.empty() ? path : name);
  }
  for (const RecordedCall& call : rec.calls) {
    out.ran.push_back(shown(call));
    unsentinel(out.ran.back(), sentinels);
    // A python helper whose output the script reads (`$(python3 model_args.py NAME)`); a launch
    // piped to `tee` is no helper.
    const bool helper = !call.argv.empty() && is_python_name(call.argv.front()) &&
                        (!may_launch(call.argv) || call.argv.size() < 3 ||
                         std::none_of(call.argv.begin() + 1, call.argv.end(),
                                      [](const std::string& a) { return a.starts_with("--"); }));
    if (call.piped && helper) {
      const std::string name = file_name(call.file, path);
      out.warnings.push_back(fmt::format("ladle: note: {}:{}: the script reads the output of '{}', which its stand-in "
                                         "does not print; what it builds from it is empty",
                                         name.empty() ? path : name, call.line, shown(call)));
    }
  }
  for (std::string& w : out.warnings) unsentinel(w, sentinels);
  // A line of flags bash ran as a command: the launch above it lost them.
  for (const RecordedCall& m : rec.missing) {
    if (m.argv.empty() || !m.argv.front().starts_with("-")) continue;
    const std::string name = file_name(m.file, path);
    throw_input(SourceLocation{name.empty() ? path : name, m.line, 1, "script"},
                "bash runs '{}' as a command of its own, so the launch above it never gets it (a missing '\\' at "
                "the end of line {}?)",
                unsentinel_copy(shown(m), sentinels), m.line - 1);
  }
  // An unset variable (its sentinel) in arithmetic: bash stops at `$((...))`, or a `((...))` takes
  // a branch by a value the run will have; ladle cannot tell which, so it asks for the value.
  if (const auto stop = bash_stop(rec.stderr_text, path, kUnsetFolder)) {
    std::string name = stop->second.substr(stop->second.find(kUnsetFolder));
    std::string message = stop->second;
    unsentinel(name, sentinels);
    unsentinel(message, sentinels);
    name = name.substr(name.find_first_not_of("${"));
    name = name.substr(0, name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"));
    if (message.find("syntax error") != std::string::npos || message.find("arithmetic") != std::string::npos) {
      throw_input(stop->first,
                  "the script computes with ${}, which is not set when ladle runs it (bash: {}); give its value "
                  "with --env {}=VALUE",
                  name, message, name);
    }
  }
  // A syntax error: bash skips the broken command and runs on, which is never what the script meant.
  if (const auto stop = bash_stop(rec.stderr_text, path, "syntax error")) {
    throw_input(stop->first, "bash: {}", stop->second);
  }
  if (rec.timed_out) {
    throw_input(SourceLocation{path, 0, 0, "script"},
                "the script did not end within {} s (--script-timeout); ladle stopped it", options.wall_seconds);
  }
  out.launch = launches_of(rec, path, sentinels);
  if (out.launch.launches.empty()) {
    if (rec.exit_code != 0) {
      if (const auto stop = bash_stop(rec.stderr_text, path)) {
        const bool positional = std::regex_search(stop->second, std::regex(R"(^\$?[0-9@*#]+: )"));
        throw_input(stop->first, "bash stopped before any launch: {}{}", stop->second,
                    positional ? " (a positional argument: give it with --script-arg)" : "");
      }
      const std::string name = file_name(rec.exit_file, path);
      throw_input(SourceLocation{name.empty() ? path : name, rec.exit_line, 0, "script"},
                  "bash exited with status {} before any launch", rec.exit_code);
    }
    std::vector<std::string> ran = out.ran;
    for (const RecordedCall& m : rec.missing) ran.push_back(unsentinel_copy(shown(m), sentinels) + " (not found)");
    throw_input(SourceLocation{path, 0, 0, "script"},
                "bash ran no training launch (a python file or module, directly or through torchrun, ray job "
                "submit, srun, ...): {}",
                ran.empty() ? std::string("it called no launcher or entry point") : "it ran " + util::join(ran, "; "));
  }
  return out;
}

args::LaunchArgs select_launch(const args::LaunchArgs& all, std::optional<size_t> n, const std::string& path) {
  if (n && (*n < 1 || *n > all.launches.size())) {
    throw_usage("--launch {}: {} has {} training launch{}", *n, path, all.launches.size(),
                all.launches.size() == 1 ? "" : "es");
  }
  size_t pick = n ? *n - 1 : 0;
  if (!n && all.launches.size() > 1) {
    bool same = true;
    for (const args::Launch& l : all.launches) {
      std::vector<std::pair<std::string, std::vector<std::string>>> a, b;
      for (const auto& x : l.args) a.emplace_back(x.flag, x.values);
      for (const auto& x : all.launches.front().args) b.emplace_back(x.flag, x.values);
      same = same && a == b;
    }
    if (!same) {
      std::vector<std::string> listed;
      for (size_t i = 0; i < all.launches.size(); ++i) {
        const args::Launch& l = all.launches[i];
        listed.push_back(fmt::format("{}: {}:{} {}", i + 1, l.file.empty() ? path : l.file, l.line, l.command));
      }
      throw_usage("{} runs {} training launches with different arguments ({}); pick one with --launch N", path,
                  all.launches.size(), util::join(listed, ", "));
    }
  }
  args::LaunchArgs out;
  out.exports = all.exports;
  out.setup = all.setup;
  out.unset_overrides = all.unset_overrides;
  if (all.launches.empty()) return out;
  args::Launch l = all.launches[pick];
  for (args::LaunchArg& a : l.args) a.command = 0;
  // A later launch's own environment is its whole environment once it stands alone.
  out.commands.push_back(l.command);
  out.args.insert(out.args.end(), l.launcher_args.begin(), l.launcher_args.end());
  out.args.insert(out.args.end(), l.args.begin(), l.args.end());
  for (const args::RunTimeWord& w : all.run_time_words) out.run_time_words.push_back(w);
  out.launches.push_back(std::move(l));
  return out;
}

}  // namespace ladle::args
