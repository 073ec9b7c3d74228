/* util/error.c: the error enum's messages and the diagnostic buffer. */
#include "util/util.h"

#include <stdio.h>

static const char *const wn_messages[] = {
#define WN_ERROR_MSG(code, msg) msg,
    WN_ERROR_LIST(WN_ERROR_MSG)
#undef WN_ERROR_MSG
};

static const char *const wn_names[] = {
#define WN_ERROR_NAME(code, msg) #code,
    WN_ERROR_LIST(WN_ERROR_NAME)
#undef WN_ERROR_NAME
};

const char *wn_strerror(wn_err err) {
  if ((unsigned)err >= (unsigned)WN_ERR_COUNT)
    return "unknown error";
  return wn_messages[err];
}

const char *wn_strerror_name(wn_err err) {
  if ((unsigned)err >= (unsigned)WN_ERR_COUNT)
    return "WN_EUNKNOWN";
  return wn_names[err];
}

void wn_diag_clear(wn_diag *diag) {
  if (diag)
    diag->msg[0] = '\0';
}

wn_err wn_diag_set(wn_diag *diag, wn_err err, const char *fmt, ...) {
  if (diag && diag->msg[0] == '\0') {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
    va_end(ap);
  }
  return err;
}

const char *wn_diag_message(const wn_diag *diag, wn_err err) {
  if (diag && diag->msg[0] != '\0')
    return diag->msg;
  return wn_strerror(err);
}
