#include "ladle/sched/process.hpp"

#include "ladle/util/shell_quote.hpp"

namespace ladle::sched {

std::string shell_quote(std::string_view text) { return util::shell_quote(text, util::ShellQuoting::posix); }

}  // namespace ladle::sched
