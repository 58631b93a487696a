// The Persistent Event Log (0Dh) decoder on logs built byte by byte from the
// specification's layout, checked against libnvme's structs, and on random,
// truncated and self-contradicting logs.
#include <gtest/gtest.h>
#include <libnvme.h>

#include <cstddef>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "collectors/nvme/persistent_event_log.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

void put_le(std::vector<std::uint8_t>& page, std::size_t offset, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) page[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
}
void put_text(std::vector<std::uint8_t>& page, std::size_t offset, const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) page[offset + i] = static_cast<std::uint8_t>(s[i]);
}

constexpr std::uint64_t kHostSet = 1ull << 49;  // timestamp origin 1: set by the host

// A log header with every field a distinct value; reserved bytes 0xEE so a
// field that reads them shows.
std::vector<std::uint8_t> header(std::uint32_t events, std::uint16_t generation) {
  std::vector<std::uint8_t> page(kPelHeaderBytes, 0);
  for (std::size_t b = 378; b < 480; ++b) page[b] = 0xEE;
  page[1] = page[2] = page[3] = page[17] = 0xEE;
  put_le(page, 0, 0x0D, 1);
  put_le(page, 4, events, 4);
  put_le(page, 16, 0x03, 1);    // log revision
  put_le(page, 18, 0x01EF, 2);  // log header length
  put_le(page, 20, kHostSet | 1'764'000'000'123ull, 8);
  put_le(page, 28, 0x0000'1234'5678ull, 8);
  put_le(page, 36, 0x1, 8);  // power-on hours bits 127:64
  put_le(page, 44, 0x0A0B0C0D, 8);
  put_le(page, 52, 0x1B36, 2);
  put_le(page, 54, 0x1AF4, 2);
  put_text(page, 56, "SN-PEL-0001         ");
  put_text(page, 76, "Fixture NVMe drive                      ");
  put_text(page, 116, "nqn.2019-08.org.qemu:pel");
  put_le(page, 372, generation, 2);
  put_le(page, 374, 0x00070001, 4);
  put_le(page, 480, (1u << 1) | (1u << 2) | (1u << 4) | (1u << 13), 4);
  put_le(page, 496 + 15, 0x40, 1);  // bit 254
  return page;
}

void finish(std::vector<std::uint8_t>& page) { put_le(page, 8, page.size(), 8); }

// Appends one event: a 24-byte header (EHL 21), `vendor` bytes of vendor
// information, then `data`.
void add_event(std::vector<std::uint8_t>& page, std::uint8_t type, std::uint64_t timestamp,
               const std::vector<std::uint8_t>& data, std::size_t vendor = 0) {
  const std::size_t at = page.size();
  page.resize(at + kPelEventHeaderBytes + vendor + data.size(), 0);
  put_le(page, at + 0, type, 1);
  put_le(page, at + 1, 0x01, 1);  // revision
  put_le(page, at + 2, 21, 1);    // EHL
  put_le(page, at + 3, 0x5A, 1);
  put_le(page, at + 4, 0x0042, 2);
  put_le(page, at + 6, timestamp, 8);
  put_le(page, at + 14, 0x0007, 2);
  put_le(page, at + 16, 0xEEEEEEEE, 4);  // reserved
  put_le(page, at + 20, vendor, 2);
  put_le(page, at + 22, vendor + data.size(), 2);
  for (std::size_t i = 0; i < vendor; ++i) page[at + kPelEventHeaderBytes + i] = 0xEE;
  std::copy(data.begin(), data.end(), page.begin() + static_cast<std::ptrdiff_t>(at + kPelEventHeaderBytes + vendor));
}

std::vector<std::uint8_t> bytes(std::size_t n) { return std::vector<std::uint8_t>(n, 0); }

// A log with one event of each decoded type, oldest first.
std::vector<std::uint8_t> fixture() {
  auto page = header(7, 0x0102);
  {
    auto d = bytes(8 + 2 * kPelResetDescriptorBytes);
    put_text(d, 0, "FW1.0   ");
    put_le(d, 8 + 0, 0x0042, 2);
    put_le(d, 8 + 2, 0x01, 1);
    put_le(d, 8 + 3, 0x00, 1);
    put_le(d, 8 + 16, 0x000000FA, 4);
    put_le(d, 8 + 20, 123456789, 8);
    put_le(d, 8 + 28, kHostSet | 1'764'000'000'000ull, 8);
    add_event(page, 0x04, kHostSet | 1'764'000'000'000ull, d);
  }
  {
    auto d = bytes(512);
    put_le(d, 0, 0x02, 1);  // critical warning: temperature
    put_le(d, 1, 358, 2);   // composite 85 °C
    put_le(d, 5, 17, 1);    // percentage used
    put_le(d, 160, 3, 8);   // media errors (bits 63:0 of 16 bytes)
    add_event(page, 0x01, kHostSet | 1'764'000'100'000ull, d, 4);
  }
  {
    auto d = bytes(24);
    put_text(d, 0, "FW1.0   ");
    put_text(d, 8, "FW2.0   ");
    put_le(d, 16, 0x03, 1);
    put_le(d, 17, 0x02, 1);
    put_le(d, 18, 0x01, 1);
    put_le(d, 19, 0x0B, 1);
    put_le(d, 20, 0xBEEF, 2);
    add_event(page, 0x02, kHostSet | 1'764'000'200'000ull, d);
  }
  {
    auto d = bytes(16);
    put_le(d, 0, 5000, 8);  // previous: 5 s since reset, origin 0
    put_le(d, 8, 6000, 8);
    add_event(page, 0x03, kHostSet | 1'764'000'300'000ull, d);
  }
  {
    auto d = bytes(8);
    put_le(d, 0, 0x0002, 2);  // PCIe uncorrectable
    add_event(page, 0x05, kHostSet | 1'764'000'400'000ull, d);
  }
  {
    auto d = bytes(2);
    put_le(d, 0, 7, 1);   // over by 7 °C
    put_le(d, 1, 80, 1);  // the 80 °C threshold
    add_event(page, 0x0D, kHostSet | 1'764'000'500'000ull, d);
  }
  add_event(page, 0x0B, kHostSet | 1'764'000'600'000ull, bytes(20));  // set feature: kept raw
  finish(page);
  return page;
}

TEST(DecodePersistentEventLog, HeaderFieldsAtTheirSpecOffsets) {
  const auto page = fixture();
  const auto r = decode_persistent_event_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const PelHeader& h = r->header;
  EXPECT_EQ(h.log_id, 0x0D);
  EXPECT_EQ(h.total_events, 7u);
  EXPECT_EQ(h.total_log_length, page.size());
  EXPECT_EQ(h.log_revision, 0x03);
  EXPECT_EQ(h.header_length, 0x01EF);
  EXPECT_EQ(h.timestamp.milliseconds(), 1'764'000'000'123ull);
  EXPECT_TRUE(h.timestamp.host_set());
  EXPECT_EQ(h.power_on_hours, (u128{1} << 64) | 0x12345678u);
  EXPECT_EQ(h.power_cycle_count, 0x0A0B0C0Du);
  EXPECT_EQ(h.vendor_id, 0x1B36);
  EXPECT_EQ(h.subsystem_vendor_id, 0x1AF4);
  EXPECT_EQ(h.serial, "SN-PEL-0001");
  EXPECT_EQ(h.model, "Fixture NVMe drive");
  EXPECT_EQ(h.subnqn, "nqn.2019-08.org.qemu:pel");
  EXPECT_EQ(h.generation, 0x0102);
  EXPECT_EQ(h.reporting_context, 0x00070001u);
  EXPECT_TRUE(h.supports(0x0D));
  EXPECT_TRUE(h.supports(0x04));
  EXPECT_FALSE(h.supports(0x03));
  EXPECT_TRUE(h.supports(254));
  EXPECT_FALSE(r->truncated);
}

TEST(DecodePersistentEventLog, EventsOfEachDecodedType) {
  const auto r = decode_persistent_event_log(fixture());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->events.size(), 7u);
  const auto& reset_event = r->events[0];
  EXPECT_EQ(reset_event.header.type, 0x04);
  EXPECT_EQ(reset_event.header.type_revision, 0x01);
  EXPECT_EQ(reset_event.header.header_length, 21);
  EXPECT_EQ(reset_event.header.header_additional_info, 0x5A);
  EXPECT_EQ(reset_event.header.controller_id, 0x0042);
  EXPECT_EQ(reset_event.header.port_id, 0x0007);
  EXPECT_EQ(reset_event.header.timestamp.milliseconds(), 1'764'000'000'000ull);
  const auto& reset = std::get<PelPowerOnReset>(reset_event.data);
  EXPECT_EQ(reset.firmware_revision & 0xFFFFFFFFu, 0x2E315746u);  // "FW1."
  EXPECT_EQ(reset.controllers, 2u);
  EXPECT_EQ(reset.controller_id, 0x0042);
  EXPECT_EQ(reset.firmware_activation, 1);
  EXPECT_EQ(reset.power_cycle_count, 0xFAu);
  EXPECT_EQ(reset.power_on_ms, 123456789u);
  EXPECT_EQ(reset.controller_timestamp.milliseconds(), 1'764'000'000'000ull);

  // Vendor information sits between the header and the data.
  EXPECT_EQ(r->events[1].header.vendor_info_length, 4);
  const auto& smart = std::get<PelSmartSnapshot>(r->events[1].data).smart;
  EXPECT_EQ(smart.critical_warning, 0x02);
  EXPECT_EQ(smart.composite_temperature_k, 358);
  EXPECT_EQ(smart.percentage_used, 17);
  EXPECT_EQ(smart.media_errors, 3u);

  const auto& fw = std::get<PelFirmwareCommit>(r->events[2].data);
  EXPECT_EQ(fw.new_revision & 0xFFFFFFFFu, 0x2E325746u);  // "FW2."
  EXPECT_EQ(describe_pel_event(r->events[2]),
            "firmware commit: FW1.0 -> FW2.0 (slot 2, action 3, status SCT 1h SC 0Bh)");
  EXPECT_EQ(fw.commit_action, 3);
  EXPECT_EQ(fw.slot, 2);
  EXPECT_EQ(fw.status_code_type, 1);
  EXPECT_EQ(fw.status_code, 0x0B);
  EXPECT_EQ(fw.vendor_result, 0xBEEF);

  const auto& ts = std::get<PelTimestampChange>(r->events[3].data);
  EXPECT_EQ(ts.previous.milliseconds(), 5000u);
  EXPECT_EQ(ts.previous.origin(), 0);
  EXPECT_EQ(ts.ms_since_reset, 6000u);

  EXPECT_EQ(std::get<PelHardwareError>(r->events[4].data).code, 0x0002);

  const auto& hot = std::get<PelThermalExcursion>(r->events[5].data);
  EXPECT_EQ(hot.over_celsius, 7);
  EXPECT_EQ(hot.threshold_celsius, 80);
  EXPECT_DOUBLE_EQ(hot.peak_celsius(), 87.0);
  EXPECT_EQ(describe_pel_event(r->events[5]), "thermal excursion: 7 °C over the 80 °C threshold");

  EXPECT_TRUE(std::holds_alternative<std::monostate>(r->events[6].data));
  EXPECT_EQ(r->events[6].header.event_length, 20);
  EXPECT_EQ(pel_type_label(r->events[6].header.type), "other");

  std::set<std::uint64_t> prints;
  for (const auto& e : r->events) prints.insert(e.fingerprint);
  EXPECT_EQ(prints.size(), r->events.size());
}

std::size_t offset_of(auto fields, const std::string& name) {
  for (const auto& f : fields) {
    if (name == f.name) return f.offset;
  }
  ADD_FAILURE() << "no field " << name;
  return 0;
}

template <typename S>
void expect_no_overlap(std::span<const FieldSpec<S>> fields, std::size_t size) {
  std::vector<int> owner(size, -1);
  for (const auto& f : fields) {
    ASSERT_LE(f.offset + f.width, size) << f.name;
    for (std::size_t b = f.offset; b < f.offset + f.width; ++b) {
      EXPECT_EQ(owner[b], -1) << f.name << " overlaps at byte " << b;
      owner[b] = 1;
    }
  }
}

TEST(DecodePersistentEventLog, AgreesWithLibnvmeStructLayout) {
  using Log = nvme_persistent_event_log;
  static_assert(sizeof(Log) == kPelHeaderBytes);
  const auto h = pel_header_fields();
  EXPECT_EQ(offset_of(h, "Log Identifier"), offsetof(Log, lid));
  EXPECT_EQ(offset_of(h, "Total Number of Events"), offsetof(Log, tnev));
  EXPECT_EQ(offset_of(h, "Total Log Length"), offsetof(Log, tll));
  EXPECT_EQ(offset_of(h, "Log Revision"), offsetof(Log, rv));
  EXPECT_EQ(offset_of(h, "Log Header Length"), offsetof(Log, lhl));
  EXPECT_EQ(offset_of(h, "Timestamp"), offsetof(Log, ts));
  EXPECT_EQ(offset_of(h, "Power on Hours"), offsetof(Log, poh));
  EXPECT_EQ(offset_of(h, "Power Cycle Count"), offsetof(Log, pcc));
  EXPECT_EQ(offset_of(h, "PCI Vendor ID"), offsetof(Log, vid));
  EXPECT_EQ(offset_of(h, "PCI Subsystem Vendor ID"), offsetof(Log, ssvid));
  EXPECT_EQ(offset_of(h, "Generation Number"), offsetof(Log, gen_number));
  EXPECT_EQ(offset_of(h, "Reporting Context Information"), offsetof(Log, rci));
  EXPECT_EQ(offset_of(h, "Supported Events Bitmap 127:0"), offsetof(Log, seb));
  expect_no_overlap(h, kPelHeaderBytes);

  using Event = nvme_persistent_event_entry;
  static_assert(sizeof(Event) == kPelEventHeaderBytes);
  const auto e = pel_event_header_fields();
  EXPECT_EQ(offset_of(e, "Event Type"), offsetof(Event, etype));
  EXPECT_EQ(offset_of(e, "Event Type Revision"), offsetof(Event, etype_rev));
  EXPECT_EQ(offset_of(e, "Event Header Length"), offsetof(Event, ehl));
  EXPECT_EQ(offset_of(e, "Event Header Additional Info"), offsetof(Event, ehai));
  EXPECT_EQ(offset_of(e, "Controller Identifier"), offsetof(Event, cntlid));
  EXPECT_EQ(offset_of(e, "Event Timestamp"), offsetof(Event, ets));
  EXPECT_EQ(offset_of(e, "Port Identifier"), offsetof(Event, pelpid));
  EXPECT_EQ(offset_of(e, "Vendor Specific Information Length"), offsetof(Event, vsil));
  EXPECT_EQ(offset_of(e, "Event Length"), offsetof(Event, el));
  expect_no_overlap(e, kPelEventHeaderBytes);

  using Fw = nvme_fw_commit_event;
  const auto fw = pel_firmware_commit_fields();
  EXPECT_EQ(offset_of(fw, "Old Firmware Revision"), offsetof(Fw, old_fw_rev));
  EXPECT_EQ(offset_of(fw, "New Firmware Revision"), offsetof(Fw, new_fw_rev));
  EXPECT_EQ(offset_of(fw, "FW Commit Action"), offsetof(Fw, fw_commit_action));
  EXPECT_EQ(offset_of(fw, "FW Slot"), offsetof(Fw, fw_slot));
  EXPECT_EQ(offset_of(fw, "Status Code Type for Firmware Commit Command"), offsetof(Fw, sct_fw));
  EXPECT_EQ(offset_of(fw, "Status Returned for Firmware Commit Command"), offsetof(Fw, sc_fw));
  EXPECT_EQ(offset_of(fw, "Vendor Assigned Firmware Commit Result Code"), offsetof(Fw, vndr_assign_fw_commit_rc));
  expect_no_overlap(fw, sizeof(Fw));

  using Ts = nvme_time_stamp_change_event;
  const auto ts = pel_timestamp_change_fields();
  EXPECT_EQ(offset_of(ts, "Previous Timestamp"), offsetof(Ts, previous_timestamp));
  EXPECT_EQ(offset_of(ts, "Milliseconds Since Reset"), offsetof(Ts, ml_secs_since_reset));

  // The reset event's data: an 8-byte firmware revision, then descriptors.
  using Por = nvme_power_on_reset_info_list;
  static_assert(sizeof(Por) == kPelResetDescriptorBytes);
  const auto por = pel_power_on_reset_fields();
  EXPECT_EQ(offset_of(por, "Controller ID"), 8 + offsetof(Por, cid));
  EXPECT_EQ(offset_of(por, "Firmware Activation"), 8 + offsetof(Por, fw_act));
  EXPECT_EQ(offset_of(por, "Operation in Progress"), 8 + offsetof(Por, op_in_prog));
  EXPECT_EQ(offset_of(por, "Controller Power Cycle"), 8 + offsetof(Por, ctrl_power_cycle));
  EXPECT_EQ(offset_of(por, "Power on milliseconds"), 8 + offsetof(Por, power_on_ml_seconds));
  EXPECT_EQ(offset_of(por, "Controller Timestamp"), 8 + offsetof(Por, ctrl_time_stamp));
  expect_no_overlap(por, 8 + sizeof(Por));

  EXPECT_EQ(offset_of(pel_hardware_error_fields(), "NVM Subsystem Hardware Error Event Code"),
            offsetof(nvme_nss_hw_err_event, nss_hw_err_event_code));
  using Hot = nvme_thermal_exc_event;
  EXPECT_EQ(offset_of(pel_thermal_excursion_fields(), "Over Temperature"), offsetof(Hot, over_temp));
  EXPECT_EQ(offset_of(pel_thermal_excursion_fields(), "Threshold"), offsetof(Hot, threshold));
}

TEST(DecodePersistentEventLog, ShortOrForeignPagesAreDecodeErrors) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{511}}) {
    const auto r = decode_persistent_event_log(std::vector<std::uint8_t>(n, 0x0D));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().reason, ErrorReason::decode);
  }
  auto page = fixture();
  page[0] = 0x02;
  EXPECT_FALSE(decode_persistent_event_log(page).ok());
}

TEST(DecodePersistentEventLog, ReadsNoFurtherThanTheTotalLogLength) {
  auto page = fixture();
  const std::size_t real = page.size();
  page.resize(real + 64, 0);
  add_event(page, 0x0D, kHostSet, {1, 70});  // past TLL: must not be seen
  put_le(page, 4, 8, 4);                     // TNEV claims it
  const auto r = decode_persistent_event_log(page);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->events.size(), 7u);
  EXPECT_TRUE(r->truncated);
}

TEST(DecodePersistentEventLog, LyingLengthsKeepTheEventsBefore) {
  const auto good = fixture();
  const std::size_t third =
      kPelHeaderBytes + (kPelEventHeaderBytes + 8 + 2 * kPelResetDescriptorBytes) + (kPelEventHeaderBytes + 4 + 512);
  auto lies = [&](std::size_t field, std::uint64_t value, std::size_t width) {
    auto page = good;
    put_le(page, third + field, value, width);
    return decode_persistent_event_log(page);
  };
  for (const auto& r : {lies(22, 0xFFFF, 2), lies(2, 0, 1), lies(20, 0x100, 2)}) {
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->events.size(), 2u);
    EXPECT_TRUE(r->truncated);
  }
}

// Random logs, and the fixture cut anywhere or with random bytes flipped,
// never crash, never read past the page, and keep every value in range.
TEST(DecodePersistentEventLog, RandomAndTruncatedLogsStayInRange) {
  std::mt19937_64 rng(20261203);
  const std::set<std::string_view> labels(pel_type_labels().begin(), pel_type_labels().end());
  const auto good = fixture();
  auto check = [&](const std::vector<std::uint8_t>& page) {
    // An exact-size copy: a read past its end is a fault under the sanitizers.
    const std::vector<std::uint8_t> exact(page.begin(), page.end());
    const auto r = decode_persistent_event_log(exact);
    if (!r) {
      EXPECT_EQ(r.error().reason, ErrorReason::decode);
      return;
    }
    EXPECT_LE(r->events.size(), r->header.total_events);
    std::size_t bytes_seen = kPelHeaderBytes;
    for (const auto& e : r->events) {
      bytes_seen += e.header.header_length + 3u + e.header.event_length;
      EXPECT_GE(e.header.header_length + 3u, kPelEventHeaderBytes);
      EXPECT_LE(e.header.vendor_info_length, e.header.event_length);
      EXPECT_LE(e.header.timestamp.milliseconds(), 0xFFFF'FFFF'FFFFull);
      EXPECT_LE(e.header.timestamp.origin(), 7);
      EXPECT_TRUE(labels.count(pel_type_label(e.header.type)));
      EXPECT_FALSE(describe_pel_event(e).empty());
      if (const auto* p = std::get_if<PelPowerOnReset>(&e.data)) {
        EXPECT_GE(p->controllers, 1u);
        EXPECT_LE(8 + p->controllers * kPelResetDescriptorBytes, e.header.event_length);
      }
    }
    EXPECT_LE(bytes_seen, exact.size());
    EXPECT_LE(bytes_seen, std::max<std::uint64_t>(r->header.total_log_length, kPelHeaderBytes));
  };
  for (int round = 0; round < 1500; ++round) {
    std::vector<std::uint8_t> page(rng() % 4096);
    for (auto& b : page) b = static_cast<std::uint8_t>(rng());
    if (page.size() > 0 && rng() % 2) page[0] = 0x0D;
    check(page);

    auto cut = good;
    cut.resize(rng() % (good.size() + 1));
    check(cut);

    auto flipped = good;
    for (int i = 0; i < 8; ++i) flipped[rng() % flipped.size()] = static_cast<std::uint8_t>(rng());
    check(flipped);
  }
}

TEST(PelTypeLabel, DecodedTypesByNameEveryOtherAsOther) {
  EXPECT_EQ(pel_type_label(0x01), "smart_snapshot");
  EXPECT_EQ(pel_type_label(0x02), "firmware_commit");
  EXPECT_EQ(pel_type_label(0x03), "timestamp_change");
  EXPECT_EQ(pel_type_label(0x04), "power_on_reset");
  EXPECT_EQ(pel_type_label(0x05), "hardware_error");
  EXPECT_EQ(pel_type_label(0x0D), "thermal_excursion");
  EXPECT_EQ(pel_type_label(0x06), "other");
  EXPECT_EQ(pel_type_label(0xDE), "other");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
