// nvmonctl list: every [[soak]] schedule (and operator run) with its state
// and next start.
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_list(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("list", "Soak schedules, their state and next start");
  c->footer("Example: nvmonctl list");
  c->callback([&o, &rc] {
    rc = call<control::ListReply>(o, control::ListRequest{}, [](const control::ListReply& r, std::ostream& out) {
      print_table(out, r.schedules, "no schedules", "{:<24} {:<10} {:<16} {:<32} {:<13} {:<19} {:>5} {}\n",
                  {"NAME", "TEST", "TARGET", "SCHEDULE", "STATE", "NEXT", "RUN", "DETAIL"},
                  [](const control::Schedule& s) -> std::vector<std::string> {
                    return {
                        s.name,      s.test,  s.target, s.schedule, std::string(to_text(s.state)), when(s.next_start),
                        cell(s.run), s.detail};
                  });
    });
  });
}

}  // namespace nvmond::ctl
