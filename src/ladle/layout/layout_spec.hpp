#pragma once
// layout_spec.hpp: the one-line layout spec used by every command, e.g.
// "tp=4,pp=4,cp=1,ep=32,etp=1,dp=8,sp=on,vpp=1,first=18,last=20,recompute=selective,offload=1.0,
//  overlap=on,precision_aware=on,max_tokens=8192,rows_per_mb=1,dispatcher=alltoall".

#include <string>
#include <string_view>
#include <vector>

#include "ladle/layout/layout.hpp"

namespace ladle::layout {

/// The keys a spec accepts, in the order format_layout_spec writes them.
std::vector<std::string> layout_spec_keys();

/// Parses a spec: comma-separated key=value pairs, any order, each key at most once; keys left
/// out keep Layout's defaults. Booleans are on/off (also true/false, 1/0); recompute is
/// none | selective | full[:uniform|block[:layers]]. Throws Error(usage) naming the key: an
/// unknown key (with "did you mean"), a repeated key, a value that is not a number or out of
/// range (parallel sizes 1..65536, offload 0..1). Also accepts the label layout_label writes
/// ("TP4 PP4 EP16 DP4"), taking `plan`'s choices for what a label leaves out (sp when tp > 1,
/// precision_aware on).
Layout parse_layout_spec(std::string_view spec);

/// A spec as written: the layout it gives (Layout's defaults for what it leaves out) and the spec
/// keys it names, in the order given (a label names its sizes: tp, pp, and vpp, cp, ep, etp, dp
/// where written).
struct PartialLayout {
  Layout layout;
  std::vector<std::string> given;
  /// Whether the spec names `key`.
  bool names(std::string_view key) const;
};

/// parse_layout_spec, keeping which keys the spec names; a label's layout keeps Layout's defaults
/// for what it leaves out (complete_layout in plan/partial_layout.hpp fills them in). Throws as
/// parse_layout_spec does.
PartialLayout parse_partial_layout_spec(std::string_view spec);

/// The canonical spec: every key in layout_spec_keys() order; first/last only when set and
/// moments only when bf16. parse_layout_spec(format_layout_spec(x)) == x.
std::string format_layout_spec(const Layout& layout);

/// A short label as the recipes write it: "TP4 PP4 EP32 DP8" (CP, ETP, VPP when not 1).
std::string layout_label(const Layout& layout);

}  // namespace ladle::layout
