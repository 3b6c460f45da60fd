#include "ladle/plan/report_render.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {
namespace {

PlanReport flash_plan(PlanRequest& r, int64_t top) {
  r.model = model::load_model("glm-4.7-flash");
  r.cluster = make_cluster("h200", 8);
  r.calibration = default_calibration();
  r.top = top;
  return plan_layouts(r);
}

ReportHeader header_of(const PlanRequest& r) {
  return ReportHeader{r.model.name, 0, r.cluster, r.workload, r.calibration.source};
}

size_t widest_line(const std::string& text) {
  size_t widest = 0;
  for (const std::string& line : util::split(text, '\n')) widest = std::max(widest, line.size());
  return widest;
}

// The ranked rows of a plan's table: the text after the memory column.
std::vector<std::string> ranked_summaries(const std::string& text, size_t rows) {
  std::vector<std::string> out;
  const std::vector<std::string> lines = util::split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("rank ")) continue;
    const size_t at = lines[i].find("layout");
    for (size_t k = 0; k < rows; ++k) out.push_back(lines[i + 2 + k].substr(at));
    break;
  }
  return out;
}

TEST(PlanText, StaysWithin120ColumnsWithTheSpecUnderEachRow) {
  PlanRequest r;
  const PlanReport report = flash_plan(r, 8);
  const std::string text = render_plan(report, header_of(r), 0.05);
  EXPECT_LE(widest_line(text), 120u) << text;
  for (const Prediction& p : report.top) {
    // Every item of each full spec is printed (the spec wraps after a comma).
    for (const std::string& item : util::split(layout::format_layout_spec(p.layout), ',')) {
      EXPECT_NE(text.find(item), std::string::npos) << item;
    }
  }
  ReportHeader wide = header_of(r);
  wide.wide = true;
  const std::string wide_text = render_plan(report, wide, 0.05);
  EXPECT_NE(wide_text.find("  " + layout::format_layout_spec(report.top.front().layout) + "\n"), std::string::npos);
}

TEST(PlanText, TwoRankedRowsNeverPrintTheSameSummary) {
  PlanRequest r;
  PlanReport report = flash_plan(r, 1);
  // The same layout with another dispatcher: the label leaves the dispatcher out, so the summary
  // must name it.
  Prediction other = report.top.front();
  other.layout.dispatcher =
      other.layout.dispatcher == MoeDispatcher::alltoall ? MoeDispatcher::allgather : MoeDispatcher::alltoall;
  report.top.push_back(other);
  ASSERT_EQ(layout::layout_label(report.top[0].layout), layout::layout_label(report.top[1].layout));
  const std::string text = render_plan(report, header_of(r), 0.05);
  const std::vector<std::string> rows = ranked_summaries(text, 2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0], rows[1]);
  EXPECT_NE(rows[1].find("dispatcher="), std::string::npos) << rows[1];
  // A real plan's rows are all different too.
  PlanRequest r8;
  const PlanReport eight = flash_plan(r8, 8);
  const std::vector<std::string> ranked = ranked_summaries(render_plan(eight, header_of(r8), 0.05), eight.top.size());
  EXPECT_EQ(std::set<std::string>(ranked.begin(), ranked.end()).size(), ranked.size());
}

TEST(PredictionText, StaysWithin120ColumnsForADeepPipeline) {
  PlanRequest r;
  r.model = model::load_model("glm-5.2-744b-a40b");
  r.cluster = make_cluster("h200", 104);
  r.calibration = default_calibration();
  const Layout l = layout::parse_layout_spec("tp=4,pp=13,ep=2,sp=on,recompute=full");
  layout::LayoutContext context{104, 8, r.workload.row_tokens, r.workload.global_batch};
  context.num_layers = r.model.num_layers;
  const Layout resolved = layout::resolve_layout(l, context);
  const Prediction p = predict(model_costs(r.model, r.workload.row_tokens), r.model, resolved, r.cluster, r.workload,
                               r.calibration);
  ASSERT_EQ(p.stages.size(), 13u);  // two tables of stages
  const std::string text = render_prediction(p, header_of(r));
  EXPECT_LE(widest_line(text), 120u) << text;
  for (const StageMemory& s : p.stages) {
    EXPECT_NE(text.find(fmt::format("stage {}", s.stage)), std::string::npos);
  }
}

}  // namespace
}  // namespace ladle::plan

namespace ladle::plan {
namespace {

TEST(PlanText, ADenseModelShowsNoMoeKnobs) {
  PlanRequest r;
  r.model = model::load_model("llama-3.1-8b");
  r.cluster = make_cluster("h100", 8);
  r.calibration = default_calibration();
  r.top = 3;
  const PlanReport report = plan_layouts(r);
  ReportHeader h = header_of(r);
  h.moe = false;
  const std::string text = render_plan(report, h, 0.05);
  for (const char* moe : {" EP1", "ep=", "etp=", "dispatcher="}) EXPECT_EQ(text.find(moe), std::string::npos) << moe;
  EXPECT_NE(text.find("tp="), std::string::npos);
  h.moe = true;
  EXPECT_NE(render_plan(report, h, 0.05).find("ep=1"), std::string::npos);
}

}  // namespace
}  // namespace ladle::plan

namespace ladle::plan {
namespace {

// A value of `knob` other than the one `l` holds, as the spec writes it ("" when none is found).
std::string another_value(const layout::Knob& knob, const Layout& l) {
  const std::string now = layout::knob_text(knob, l);
  std::vector<std::string> candidates;
  switch (knob.kind) {
    case layout::KnobKind::integer: candidates = {"2", "3"}; break;
    case layout::KnobKind::flag: candidates = {"on", "off"}; break;
    case layout::KnobKind::real: candidates = {"0.5", "1.0"}; break;
    case layout::KnobKind::choice:
    case layout::KnobKind::set:
      for (size_t i = 0; i < knob.names.size(); ++i) {
        if (knob.allowed == 0 || ((knob.allowed >> i) & 1) != 0) candidates.emplace_back(knob.names[i]);
      }
      break;
    case layout::KnobKind::text: candidates = {"Et|tL"}; break;
  }
  for (const std::string& c : candidates) {
    if (c != now) return c;
  }
  return {};
}

// The plan table's rows tell every knob apart: two layouts that differ only in one knob (and
// what it needs to mean something) print different summaries, one of them naming that knob.
TEST(PlanText, EveryKnobTellsTwoRowsApart) {
  PlanRequest r;
  const PlanReport base = flash_plan(r, 1);
  size_t told_apart = 0;
  for (const layout::Knob& knob : layout::kKnobs) {
    // The sizes are the label itself; dp follows them.
    if (knob.spec == layout::Written::always && knob.kind == layout::KnobKind::integer) continue;
    if (knob.key == "dp") continue;
    PlanReport report = base;
    Prediction other = report.top.front();
    if (!knob.when.key.empty() && !layout::knob_applies(knob, other.layout)) {
      const layout::Knob& parent = *layout::find_knob(knob.when.key);
      const std::string value = knob.when.negate ? another_value(parent, other.layout) : std::string(knob.when.value);
      layout::set_knob_text(parent, other.layout, value, parent.key);
    }
    const std::string value = another_value(knob, other.layout);
    ASSERT_FALSE(value.empty()) << knob.key;
    layout::set_knob_text(knob, other.layout, value, knob.key);
    if (other.layout == report.top.front().layout) continue;  // a value the layout cannot hold alone
    report.top.push_back(other);
    const std::vector<std::string> rows = ranked_summaries(render_plan(report, header_of(r), 0.05), 2);
    ASSERT_EQ(rows.size(), 2u) << knob.key;
    EXPECT_NE(rows[0], rows[1]) << knob.key;
    // The row whose spec writes the knob names it (a knob at its default is left out of a spec;
    // a folded knob is written inside its parent's item, recompute=full:block:2), or names another
    // knob the change moved with it (moments moves moments_sq; a knob that needs its parent moves
    // the parent). A summary shortened to the width ("...") is exempt: the full spec is printed
    // under its row.
    const bool shortened = rows[0].find("...") != std::string::npos || rows[1].find("...") != std::string::npos;
    bool named = false;
    for (const layout::Knob& moved : layout::kKnobs) {
      if (layout::knob_text(moved, other.layout) == layout::knob_text(moved, report.top.front().layout)) continue;
      const std::string_view key = moved.spec == layout::Written::folded ? moved.when.key : moved.key;
      named = named || rows[0].find(std::string(key) + "=") != std::string::npos ||
              rows[1].find(std::string(key) + "=") != std::string::npos;
    }
    EXPECT_TRUE(named || shortened) << knob.key << ": " << rows[0] << " / " << rows[1];
    ++told_apart;
  }
  EXPECT_GE(told_apart + 10, layout::kKnobs.size());  // all but the sizes and splits
}

}  // namespace
}  // namespace ladle::plan
