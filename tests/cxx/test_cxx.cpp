// test_cxx.cpp: the public header from C++. Calls a function of every
// section of include/winnow/winnow.h (lifecycle and errors, store,
// learning, detector and page result, site info, WARC, and the unstable
// part) and links against libwinnow: a declaration left outside extern "C"
// gets a C++-mangled name and fails to link here.
//
// A plain program (no cmocka, which is C): CHECK(expr) stops at the first
// failure with its line, as LMDB's mtest programs do.
#define WN_UNSTABLE_API
#include <winnow/winnow.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

#define CHECK(expr)                                                                        \
  do {                                                                                     \
    if (!(expr)) {                                                                         \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

#define CHECK_OK(call)                                                                     \
  do {                                                                                     \
    wn_err err_ = (call);                                                                  \
    if (err_ != WN_OK) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                   wn_diag_message(&diag, err_));                                          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

static const char *const kSite = "www.harbourgazette.example";

static int count_site(const char *site, void *ctx) {
  (void)site;
  ++*static_cast<int *>(ctx);
  return 0;
}

int main() {
  wn_diag diag;
  wn_diag_clear(&diag);

  // Lifecycle and errors.
  CHECK_OK(wn_init());
  CHECK(std::strcmp(wn_version(), WN_VERSION_STRING) == 0);
  CHECK(std::strcmp(wn_strerror(WN_ENOMEM), "out of memory") == 0);
  CHECK(std::strcmp(wn_strerror_name(WN_ENOTEMPLATE), "WN_ENOTEMPLATE") == 0);
  CHECK(wn_exit_code(WN_ESTORE) == WN_EXIT_STORE);
  char site[WN_SITE_MAX + 1];
  CHECK_OK(wn_site_from_url("https://WWW.Example.COM/a?b", site, sizeof site, &diag));
  CHECK(std::strcmp(site, "www.example.com") == 0);

  char tmpl[] = "/tmp/winnow-cxx.XXXXXX";
  CHECK(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string store_dir = dir + "/store";

  // Store.
  wn_store_options so;
  wn_store_options_init(&so);
  wn_store *store = nullptr;
  CHECK_OK(wn_store_open(store_dir.c_str(), &so, &store, &diag));
  CHECK(wn_store_lockless(store) == 0);

  // Learning: the fixture site from files, stored.
  const std::string fx = std::string(WN_FIXTURES) + "/site/";
  const std::string p1 = fx + "article-1.html", p2 = fx + "article-2.html",
                    p3 = fx + "article-3.html";
  const char *paths[] = {p1.c_str(), p2.c_str(), p3.c_str()};
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  wn_learned *learned = nullptr;
  CHECK_OK(wn_site_learn_files(kSite, paths, 3, &lo, &learned, &diag));
  CHECK(wn_learned_algo(learned) == WN_LEARN_ETDM);
  CHECK(std::strcmp(wn_learn_algo_name(WN_LEARN_FASTCE), "fastce") == 0);
  wn_learn_summary summary;
  wn_learned_summary_get(learned, &summary);
  CHECK(summary.n_used >= 2);
  wn_save_info info;
  CHECK_OK(wn_site_save(store, learned, &info, &diag));
  CHECK(info.generation == 1);
  wn_learned_free(learned);
  // wn_store_check on a closed store: LMDB allows one open of an
  // environment per process, and the check opens it (in a child).
  wn_store_close(store);
  wn_store_check_report report;
  CHECK_OK(wn_store_check(store_dir.c_str(), &report, &diag));
  CHECK(report.damaged == 0 && report.entries > 0);
  so.read_only = 1;
  CHECK_OK(wn_store_open(store_dir.c_str(), &so, &store, &diag));

  // Detector and page result.
  wn_detector_options dopts;
  wn_detector_options_init(&dopts);
  wn_detector *detector = nullptr;
  CHECK_OK(wn_detector_create(store, &dopts, &detector, &diag));
  CHECK_OK(wn_detector_set_steps(detector, 0, &diag));
  char *page = nullptr;
  size_t page_len = 0;
  CHECK_OK(wn_file_read((fx + "article-6.html").c_str(), WN_PAGE_MAX_BYTES, &page, &page_len,
                        &diag));
  wn_page_input in = {page, page_len, kSite, nullptr, nullptr};
  wn_page_result *result = nullptr;
  CHECK_OK(wn_detector_detect(detector, &in, WN_WANT_TEXT | WN_WANT_METADATA, &result, &diag));
  CHECK(std::strcmp(wn_page_result_method(result), "template") == 0);
  size_t text_len = 0;
  const char *text = wn_page_result_text(result, &text_len);
  CHECK(std::strstr(text, "Councillors voted unanimously") != nullptr);
  CHECK(wn_page_result_metadata(result) != nullptr);
  char *json = nullptr;
  CHECK_OK(wn_page_result_json(result, nullptr, 0, &json, &diag));
  CHECK(json[0] == '{');
  wn_free(json);
  wn_page_result_free(result);
  // A tiny page without a site: the single-page method.
  const char html[] = "<html><body><nav><a href=/>Home</a></nav><article><p>Main text of "
                      "this small page, long enough to be prose.</p></article></body></html>";
  wn_page_input tiny = {html, sizeof html - 1, nullptr, nullptr, nullptr};
  CHECK_OK(wn_detector_detect(detector, &tiny, WN_WANT_TEXT, &result, &diag));
  CHECK(wn_page_result_fallback(result) == WN_FALLBACK_NO_TEMPLATE);
  wn_page_result_free(result);
  wn_detector_destroy(detector);

  // Site info.
  wn_site_info *si = nullptr;
  CHECK_OK(wn_site_info_get(store, kSite, &si, &diag));
  CHECK(std::strcmp(si->site, kSite) == 0);
  CHECK(si->generation == 1);
  wn_site_info_free(si);
  int n_sites = 0;
  CHECK_OK(wn_site_each(store, count_site, &n_sites, &diag));
  CHECK(n_sites == 1);
  wn_store_close(store);

  // WARC: one conversion record written, read back.
  const std::string warc = dir + "/out.warc.gz";
  wn_warc_writer *writer = nullptr;
  CHECK_OK(wn_warc_writer_open(warc.c_str(), nullptr, &writer, &diag));
  wn_warc_record rec = {"conversion", "https://www.example.com/", nullptr, nullptr,
                        "text/plain", "hello", 5};
  char id[WN_WARC_ID_SIZE];
  CHECK_OK(wn_warc_write_record(writer, &rec, id, &diag));
  CHECK_OK(wn_warc_writer_close(writer, &diag));
  wn_warc_reader_options ro;
  wn_warc_reader_options_init(&ro);
  ro.every_record = 1;
  wn_warc_reader *reader = nullptr;
  CHECK_OK(wn_warc_reader_open(warc.c_str(), &ro, &reader, &diag));
  wn_warc_page wp;
  int found = 0;
  wn_err rc;
  while ((rc = wn_warc_next(reader, &wp, &diag)) == WN_OK)
    if (wp.record_id && std::strcmp(wp.record_id, id) == 0)
      found = wp.payload_len == 5 && std::memcmp(wp.payload, "hello", 5) == 0;
  CHECK(rc == WN_ENOTFOUND);
  CHECK(found);
  wn_warc_reader_close(reader);

  std::free(page); // wn_file_read's bytes: malloc'd, libc free() keeps working
  std::string rm = "rm -rf '" + dir + "'";
  CHECK(std::system(rm.c_str()) == 0);
  wn_cleanup();
  std::puts("C++: every section of winnow.h links and runs: ok");
  return 0;
}
