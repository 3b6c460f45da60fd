// sandbox.cpp: bash in bubblewrap, with recording stand-ins for launchers and entry points.
#include "ladle/args/sandbox.hpp"

#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/process.hpp"

namespace ladle::args {
namespace fs = std::filesystem;

namespace {

// Where the sandbox sees ladle's folders: inside its own /tmp (a tmpfs), so that nothing is
// created on the read-only root.
constexpr const char* kInsideBin = "/tmp/.ladle/bin";
constexpr const char* kInsideOut = "/tmp/.ladle/out";
constexpr const char* kStandIn = "ladle-stand-in";
// Bytes a tmpfs of the sandbox (its /tmp, $HOME, a writable view of a folder) may hold.
constexpr uint64_t kTmpfsBytes = uint64_t{256} << 20;
// Bytes one file the sandbox writes may have (RLIMIT_FSIZE): its output and its tmpfs writes.
constexpr uint64_t kFileBytes = uint64_t{64} << 20;
// A folder with more entries than this is shown read-only rather than as a writable view (one
// bind per entry).
constexpr size_t kMaxViewEntries = 512;
// The most calls one run may record; more is a script that loops over a launcher.
constexpr size_t kMaxCalls = 4096;

// Runs in place of every launcher and entry point: records argv, working directory, environment
// and the calling line (__LADLE_LINE, kept by rc.sh), answers what scripts ask of nvidia-smi and
// scontrol, and follows sbatch/srun/mpirun into a bash script they would run. BASH_ENV is dropped
// so that the stand-in itself is not traced.
constexpr const char* kStandInText = R"SH(#!/usr/bin/env -S -u BASH_ENV /bin/bash
# Written by ladle for a --script run: records this call and returns success.
name=${0##*/}
at=${__LADLE_LINE-}
d=$(/usr/bin/mktemp -d "$__LADLE_OUT/calls/XXXXXXXX") || exit 0
piped=; [[ -p /dev/stdout ]] && piped=1
printf '%s\0' "$(/usr/bin/date +%s%N)" "$PWD" "$at" "$piped" > "$d/meta"
printf '%s\0' "$name" "$@" > "$d/argv"
/usr/bin/env -0 > "$d/env"
follow() { export BASH_ENV=$__LADLE_RC; exec /bin/bash "$@"; }
case $name in
  nvidia-smi)
    for ((i = 0; i < ${__LADLE_GPUS:-8}; i++)); do
      if [[ " $* " == *" -L "* || " $* " == *" --list-gpus "* ]]; then printf 'GPU %d: stand-in (UUID: GPU-%d)\n' "$i" "$i"
      elif [[ " $* " == *" --query-gpu"* ]]; then printf '%d\n' "$i"; fi
    done ;;
  scontrol)
    if [[ ${1-} == show && ${2-} == hostnames ]]; then h=${3-${SLURM_JOB_NODELIST-}}; printf '%s\n' ${h//,/ }; fi ;;
  sbatch)
    for ((i = 1; i <= $#; i++)); do
      a=${!i}
      case $a in
        --wrap=*) follow -c "${a#--wrap=}" ;;
        --wrap) j=$((i + 1)); follow -c "${!j-}" ;;
        -*) ;;
        *) [[ -f $a ]] && follow "$a" "${@:i+1}" ;;
      esac
    done
    # The batch script on standard input (sbatch <<EOF ... EOF).
    if [[ ! -t 0 ]]; then
      s=$(/usr/bin/mktemp "$__LADLE_OUT/sbatch.XXXXXXXX") && /usr/bin/cat > "$s" && [[ -s $s ]] && follow "$s"
    fi ;;
  srun|mpirun|mpiexec)
    for ((i = 1; i <= $#; i++)); do
      a=${!i}
      case $a in
        bash|sh|*/bash|*/sh) follow "${@:i+1}" ;;
        *.sh) [[ -f $a ]] && follow "$a" "${@:i+1}" ;;
        python*|*/python*|*.py|torchrun|*/torchrun) break ;;
      esac
    done ;;
esac
exit 0
)SH";

// Read by every bash of the run (BASH_ENV): keeps the file and line of the command being run in
// __LADLE_LINE (exported, so a stand-in sees its caller's line), lists the files bash reads, and
// records a command bash does not find (a line of flags cut off a launch by a missing '\').
constexpr const char* kRcText = R"SH(# Written by ladle for a --script run: where each command of the job runs.
set -o functrace
declare -A __ladle_abs=()
__ladle_debug() {
  local s=${BASH_SOURCE[1]-} n=${BASH_LINENO[0]-0} a
  [[ -z $s || $s == "$__LADLE_RC" || $BASH_COMMAND == __ladle_* ]] && return 0
  a=${__ladle_abs["$s"]-}
  if [[ -z $a ]]; then
    if [[ $s == /* ]]; then a=$s; else a=$PWD/$s; fi
    __ladle_abs["$s"]=$a
    printf '%s\0' "$a" >> "$__LADLE_OUT/sources"
  fi
  __ladle_last=${__LADLE_LINE-}
  export __LADLE_LINE="$a:$n"
  return 0
}
trap __ladle_debug DEBUG
# The script's own shell (not a nested bash) says where it ended: the line of an `exit 1`.
if [[ -z ${__LADLE_NESTED-} ]]; then
  export __LADLE_NESTED=1
  # The trap's own command moved __LADLE_LINE (bash runs it as line 1): the line before it.
  __ladle_exit() { printf '%s\0%s\0' "$1" "${__ladle_last-}" > "$__LADLE_OUT/exit"; }
  trap '__ladle_exit $?' EXIT
fi
command_not_found_handle() {
  local d
  if d=$(/usr/bin/mktemp -d "$__LADLE_OUT/missing/XXXXXXXX"); then
    printf '%s\0' "$(/usr/bin/date +%s%N)" "$PWD" "${__LADLE_LINE-}" > "$d/meta"
    printf '%s\0' "$@" > "$d/argv"
    : > "$d/env"
  fi
  printf 'bash: %s: command not found\n' "$1" >&2
  return 127
}
)SH";

// The names each stand-in answers to. Launchers and entry points, the tools scripts ask about the
// machine or the cluster, and the ones that would reach the network or stop processes.
const std::vector<std::string> kPrograms = {
    "python",   "python3",  "python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13",
    "torchrun", "ray",      "srun",      "sbatch",    "salloc",     "mpirun",     "mpiexec",    "deepspeed",
    "accelerate", "uv",     "pip",       "pip3",      "nvidia-smi", "scontrol",   "squeue",     "sinfo",
    "sleep",    "pkill",    "killall",   "curl",      "wget",       "git",        "ssh",        "scp",
    "pdsh",     "docker",   "apptainer", "singularity", "enroot",   "huggingface-cli", "hf",    "nsys",
    "ncu",      "numactl",  "sglang",    "vllm"};

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0') {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& path, const std::string& text, bool executable) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(ErrorKind::io, "cannot write " + path.string());
  if (executable) fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                            fs::perms::others_read | fs::perms::others_exec);
}

// A temporary folder of ladle's own, removed when the run is done.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "ladle-script-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error(ErrorKind::io, fmt::format("cannot make a temporary folder: {}", std::strerror(errno)));
    }
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string home_folder() {
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr && *pw->pw_dir) {
    return pw->pw_dir;
  }
  return "/root";
}

std::string user_name() {
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return "root";
}

// `folder` as the sandbox shows it: a tmpfs (writes are thrown away) holding every entry of the
// real folder bound read-only, so the script reads its files and can write new ones beside them.
void writable_view(const fs::path& folder, std::vector<std::string>& argv) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    entries.push_back(it->path());
    if (entries.size() > kMaxViewEntries) break;
  }
  if (ec || entries.size() > kMaxViewEntries) {
    argv.insert(argv.end(), {"--ro-bind", folder.string(), folder.string()});
    return;
  }
  argv.insert(argv.end(), {"--size", std::to_string(kTmpfsBytes), "--tmpfs", folder.string()});
  for (const fs::path& e : entries) {
    if (fs::is_symlink(e, ec)) {
      argv.insert(argv.end(), {"--symlink", fs::read_symlink(e, ec).string(), e.string()});
    } else {
      argv.insert(argv.end(), {"--ro-bind", e.string(), e.string()});
    }
  }
}

RecordedCall read_call(const fs::path& dir, bool with_name) {
  RecordedCall call;
  const std::vector<std::string> meta = split_nul(slurp(dir / "meta"));
  call.argv = split_nul(slurp(dir / "argv"));
  if (!with_name && call.argv.empty()) call.argv.emplace_back();
  if (meta.size() > 0) call.order = std::strtoll(meta[0].c_str(), nullptr, 10);
  if (meta.size() > 1) call.cwd = meta[1];
  if (meta.size() > 2) {
    const std::string& at = meta[2];
    const size_t colon = at.rfind(':');
    if (colon != std::string::npos) {
      call.file = at.substr(0, colon);
      call.line = std::atoi(at.c_str() + colon + 1);
    }
  }
  call.piped = meta.size() > 3 && meta[3] == "1";
  for (const std::string& kv : split_nul(slurp(dir / "env"))) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = kv.substr(0, eq);
    if (name.starts_with("__LADLE_") || name == "BASH_ENV") continue;
    call.env.emplace_back(std::move(name), kv.substr(eq + 1));
  }
  return call;
}

std::vector<RecordedCall> read_calls(const fs::path& folder, bool with_name) {
  std::vector<std::pair<std::string, RecordedCall>> calls;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (calls.size() >= kMaxCalls) {
      throw Error(ErrorKind::input, fmt::format("the script called launchers more than {} times", kMaxCalls));
    }
    calls.emplace_back(it->path().filename().string(), read_call(it->path(), with_name));
  }
  std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) {
    return a.second.order != b.second.order ? a.second.order < b.second.order : a.first < b.first;
  });
  std::vector<RecordedCall> out;
  for (auto& [name, call] : calls) out.push_back(std::move(call));
  return out;
}

}  // namespace

const std::vector<std::string>& stand_in_programs() { return kPrograms; }

Recording run_sandboxed(const SandboxOptions& o) {
  Recording rec;
  const char* override_bwrap = std::getenv("LADLE_BWRAP");
  const std::string bwrap = override_bwrap != nullptr && *override_bwrap ? override_bwrap : "/usr/bin/bwrap";
  if (::access(bwrap.c_str(), X_OK) != 0) {
    rec.why_not = fmt::format("{} is not installed", bwrap);
    return rec;
  }
  TempDir tmp;
  const fs::path bin = tmp.path / "bin";
  const fs::path out = tmp.path / "out";
  for (const fs::path& p : {bin, out, out / "calls", out / "missing"}) fs::create_directories(p);
  const fs::path empty = tmp.path / "empty";  // what a sentinel's file shows: nothing
  write_text(empty, "", false);
  write_text(bin / kStandIn, kStandInText, true);
  write_text(bin / "rc.sh", kRcText, false);
  for (const std::string& name : kPrograms) fs::create_symlink(kStandIn, bin / name);

  const std::string inside_bin = kInsideBin;
  const std::string inside_rc = inside_bin + "/rc.sh";
  const std::string home = home_folder();
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const fs::path script_dir = fs::absolute(o.script, ec).parent_path();

  rec.initial_env = {{"PATH", inside_bin + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                     {"HOME", home},
                     {"USER", user_name()},
                     {"LOGNAME", user_name()},
                     {"LANG", "C.UTF-8"},
                     {"SHELL", "/bin/bash"}};
  for (const auto& [name, kind] : o.unset) rec.initial_env.emplace_back(name, unset_sentinel(name));
  for (const auto& entry : o.env) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    auto it = std::find_if(rec.initial_env.begin(), rec.initial_env.end(), [&](const auto& e) { return e.first == k; });
    // PATH from --env keeps the stand-ins first.
    const std::string value = k == "PATH" ? inside_bin + ":" + v : v;
    if (it != rec.initial_env.end()) {
      it->second = value;
    } else {
      rec.initial_env.emplace_back(k, value);
    }
  }

  std::vector<std::string> argv = {bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"};
  for (const std::string& t : {std::string("/tmp"), std::string("/var/tmp"), std::string("/dev/shm"), home}) {
    argv.insert(argv.end(), {"--size", std::to_string(kTmpfsBytes), "--tmpfs", t});
  }
  // The working folder and the script's folder (shallower first) as writable views.
  std::vector<fs::path> views;
  if (!cwd.empty() && cwd != "/") views.push_back(cwd);
  if (!script_dir.empty() && script_dir != "/" && script_dir != cwd) views.push_back(script_dir);
  std::sort(views.begin(), views.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) < std::distance(b.begin(), b.end());
  });
  for (const fs::path& v : views) writable_view(v, argv);
  argv.insert(argv.end(), {"--ro-bind", bin.string(), inside_bin, "--bind", out.string(), kInsideOut});
  // The sentinels of unset variables: a tmpfs of their own (writes thrown away), holding what the
  // kind of each asks for.
  std::string inside_unset = kUnsetFolder;
  inside_unset.pop_back();
  argv.insert(argv.end(), {"--size", std::to_string(kTmpfsBytes), "--tmpfs", inside_unset});
  for (const auto& [name, kind] : o.unset) {
    const std::string at = unset_sentinel(name);
    if (kind == "dir") argv.insert(argv.end(), {"--dir", at});
    if (kind == "file") argv.insert(argv.end(), {"--ro-bind", empty.string(), at});
    if (kind == "prefix") {
      argv.insert(argv.end(), {"--ro-bind", empty.string(), at + ".bin", "--ro-bind", empty.string(), at + ".idx"});
    }
  }
  // Launchers called by their full path (/usr/bin/python3) reach the stand-in too.
  for (const std::string& name : kPrograms) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/opt/conda/bin"}) {
      const fs::path real = fs::path(dir) / name;
      if (fs::exists(real, ec) && !fs::is_directory(real, ec)) {
        argv.insert(argv.end(), {"--ro-bind", (bin / kStandIn).string(), real.string()});
      }
    }
  }
  argv.insert(argv.end(), {"--unshare-all", "--die-with-parent", "--new-session", "--clearenv"});
  std::vector<std::pair<std::string, std::string>> env = rec.initial_env;
  env.insert(env.end(), {{"BASH_ENV", inside_rc},
                         {"__LADLE_RC", inside_rc},
                         {"__LADLE_OUT", kInsideOut},
                         {"__LADLE_GPUS", std::to_string(o.gpus_per_node)}});
  for (const auto& [k, v] : env) argv.insert(argv.end(), {"--setenv", k, v});
  argv.insert(argv.end(), {"--chdir", cwd.string(), "--", "/bin/bash", o.script});
  argv.insert(argv.end(), o.args.begin(), o.args.end());

  // ladle's one process runner (util/process.hpp): bwrap in a process group of its own, killed
  // whole at the wall-time limit, with the address-space, process, file-size and CPU limits.
  util::CommandOptions limits;
  limits.timeout_s = o.wall_seconds;
  limits.address_space_bytes = o.memory_bytes;
  limits.processes = o.processes;
  limits.file_bytes = kFileBytes;
  limits.cpu_seconds = static_cast<uint64_t>(o.wall_seconds) + 2;
  limits.max_output_bytes = kFileBytes;
  const util::CommandResult ran = util::run_command(argv, limits);
  rec.timed_out = ran.timed_out;
  rec.exit_code = ran.exit_code;
  rec.stderr_text = ran.err;
  rec.sources = split_nul(slurp(out / "sources"));
  // bwrap refuses before bash runs (no user namespaces, no permission): nothing was traced.
  if (rec.sources.empty() && !rec.timed_out && rec.stderr_text.starts_with("bwrap:")) {
    const size_t nl = rec.stderr_text.find('\n');
    rec.why_not = rec.stderr_text.substr(0, nl);
    return rec;
  }
  rec.started = true;
  rec.calls = read_calls(out / "calls", true);
  if (const std::vector<std::string> exit = split_nul(slurp(out / "exit")); exit.size() > 1) {
    const size_t colon = exit[1].rfind(':');
    if (colon != std::string::npos) {
      rec.exit_file = exit[1].substr(0, colon);
      rec.exit_line = std::atoi(exit[1].c_str() + colon + 1);
    }
  }
  rec.missing = read_calls(out / "missing", false);
  return rec;
}

}  // namespace ladle::args
