// nvmonctl show RUN: one run, its rounds and steady state.
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_show(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("show", "One run with its rounds and steady state");
  static long run = 0;
  static long from_round = 1;
  c->add_option("run", run, "Run id")->required();
  c->add_option("--from", from_round, "First round to list, counted from 1 as the listing does")
      ->check(CLI::PositiveNumber);
  c->footer("Run ids: nvmonctl history.\nExample: nvmonctl show 12 --from 1");
  c->callback([&o, &rc] {
    // The daemon answers a page of rounds at a time (its "next" says where the
    // following page starts); --json prints the one page that --from names.
    // Rounds are listed as a person counts them, from 1; the daemon and
    // run.json index them (execution order) from 0.
    std::optional<std::int64_t> from = from_round - 1;
    for (bool first = true; from; first = false) {
      std::optional<std::int64_t> next;
      rc = call<control::ShowReply>(
          o, control::ShowRequest{run, from, std::nullopt},
          [first, &next](const control::ShowReply& r, std::ostream& out) {
            next = r.next;
            const auto& x = r.run;
            if (first) {
              out << fmt::format("run {} ({}): {} on {} [{}], {}\n", x.id, x.name, x.test, x.target, x.serial,
                                 to_text(x.status));
              out << fmt::format("started {}, ended {}, steady state: {}\n", when_ns(x.started_ns), when_ns(x.ended_ns),
                                 !x.steady ? "-" : (*x.steady ? "reached" : "not reached"));
              out << fmt::format("{:>6} {:<14} {:>12}\n", "ROUND", "PHASE", "IOPS");
            }
            for (const auto& rd : r.rounds) {
              out << fmt::format("{:>6} {:<14} {:>12}\n", rd.index + 1, rd.phase, whole(rd.iops));
            }
          });
      if (rc != 0) return;
      // --json prints the one page --from names
      if (o.json) return;
      from = next;
    }
  });
}

}  // namespace nvmond::ctl
