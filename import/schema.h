/*
 * schema.h - the payload schema's type check (kt_imp_check_payload,
 * kt_imp_add_count) is part of the event model: store/event_model.h.  This
 * header stays for the importers and tests that include it.
 */
#ifndef KT_SCHEMA_H
#define KT_SCHEMA_H
#include <cjson/cJSON.h>
#include "../store/store.h"
#endif
