#!/usr/bin/env python3
"""check_viewers.py FORMAT FILE - does an export hold what a viewer's parser
requires?  FORMAT: claude_code, sts or otlp.  Prints "ok N" (lines or
spans checked) or the first violation, exit 1.  Each rule cites the parser
or spec it comes from; none of the viewers can be installed offline here,
so their requirements are written out, not imported.
"""
import json
import re
import sys
from datetime import datetime


class Bad(Exception):
    pass


def need(cond, what):
    if not cond:
        raise Bad(what)


def is_str(o, k):
    return isinstance(o.get(k), str)


# ---- claude-code-log ------------------------------------------------------
# daaain/claude-code-log, claude_code_log/parser.py load_transcript (commit
# 1b816d2f): a line whose "type" is not user, assistant, summary, system or
# queue-operation is "not a recognised message type" and dropped; the rest
# go through the pydantic models of claude_code_log/models.py, where a
# missing required field fails the line.  parse_timestamp: ISO 8601 with
# "Z" replaced by +00:00.
BASE = ("isSidechain", "userType", "cwd", "sessionId", "version", "uuid",
        "timestamp")


def cc_item(it, where):
    need(isinstance(it, dict), where + ": content item not an object")
    t = it.get("type")
    if t == "text":
        need(is_str(it, "text"), where + ": text item without text")
    elif t == "tool_use":          # ToolUseContent
        need(is_str(it, "id") and is_str(it, "name"), where + ": tool_use id/name")
        need(isinstance(it.get("input"), dict), where + ": tool_use input not an object")
    elif t == "tool_result":       # ToolResultContent
        need(is_str(it, "tool_use_id"), where + ": tool_result without tool_use_id")
        c = it.get("content")
        need(isinstance(c, str) or (isinstance(c, list) and all(isinstance(x, dict) for x in c)),
             where + ": tool_result content neither a string nor a list of objects")
        need(it.get("is_error") in (None, True, False), where + ": is_error not a bool")
    elif t == "thinking":          # ThinkingContent
        need(is_str(it, "thinking"), where + ": thinking item without thinking")
    elif t == "image":             # ImageContent / ImageSource
        s = it.get("source") or {}
        need(s.get("type") == "base64" and is_str(s, "media_type") and is_str(s, "data"),
             where + ": image source not {type: base64, media_type, data}")
    else:
        raise Bad(where + ": content item type %r" % t)


def check_claude_code(lines):
    uuids = set()
    for n, l in enumerate(lines, 1):
        w = "line %d" % n
        need(isinstance(l, dict), w + ": not an object")
        t = l.get("type")
        need(t in ("user", "assistant", "summary", "system", "queue-operation"),
             w + ": type %r" % t)
        if t == "summary":
            need(is_str(l, "summary") and is_str(l, "leafUuid"), w + ": summary/leafUuid")
            continue
        # BaseTranscriptEntry: parentUuid Optional[str] with no default
        need("parentUuid" in l and (l["parentUuid"] is None or isinstance(l["parentUuid"], str)),
             w + ": parentUuid missing or not a string/null")
        need(isinstance(l.get("isSidechain"), bool), w + ": isSidechain not a bool")
        for k in BASE[1:]:
            need(is_str(l, k), w + ": %s not a string" % k)
        need(l.get("isMeta") in (None, True, False), w + ": isMeta not a bool")
        try:
            datetime.fromisoformat(l["timestamp"].replace("Z", "+00:00"))
        except ValueError:
            raise Bad(w + ": timestamp %r not ISO 8601" % l["timestamp"])
        need(l["uuid"] not in uuids, w + ": uuid repeated")
        uuids.add(l["uuid"])
        m = l.get("message")
        if t == "user":            # UserMessage
            need(isinstance(m, dict) and m.get("role") == "user", w + ": user message role")
            c = m.get("content")
            need(isinstance(c, (str, list)), w + ": user content neither a string nor a list")
            for it in c if isinstance(c, list) else []:
                cc_item(it, w)
            tur = l.get("toolUseResult")
            need(tur is None or isinstance(tur, (str, list, dict)), w + ": toolUseResult type")
        elif t == "assistant":     # AssistantMessage
            need(isinstance(m, dict), w + ": assistant without message")
            need(is_str(m, "id") and m.get("type") == "message" and m.get("role") == "assistant"
                 and is_str(m, "model"), w + ": assistant message id/type/role/model")
            need(isinstance(m.get("content"), list), w + ": assistant content not a list")
            for it in m["content"]:
                cc_item(it, w)
            u = m.get("usage")     # UsageInfo: optional ints
            need(u is None or (isinstance(u, dict) and all(
                u.get(k) is None or (isinstance(u[k], int) and not isinstance(u[k], bool))
                for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                          "cache_read_input_tokens"))), w + ": usage counts not integers")
        elif t == "system":        # SystemTranscriptEntry
            need(is_str(l, "content"), w + ": system line without content")
    return len(lines)


# ---- Hugging Face Hub trace viewer: STS ----------------------------------
# huggingface/hub-docs docs/hub/session-traces-format.md (commit 9d14846):
# a header {type: "session", harness, id, name?} and then one
# {type: "message", message: {role, content, reasoningContent?, toolCalls?,
# toolCallId?, timestamp?, model?}} a line; role user|assistant|system|tool,
# content text (may be empty), toolCalls [{id, function: {name, arguments}}]
# with arguments a JSON string, a tool message's toolCallId naming the call
# it answers, timestamp epoch milliseconds.
def check_sts(lines):
    need(lines, "empty file")
    h = lines[0]
    need(isinstance(h, dict) and h.get("type") == "session", "line 1: not a session header")
    need(is_str(h, "harness") and h["harness"] and is_str(h, "id") and h["id"],
         "line 1: harness and id must be non-empty strings")
    need(h.get("name") is None or isinstance(h["name"], str), "line 1: name not a string")
    calls = set()
    for n, l in enumerate(lines[1:], 2):
        w = "line %d" % n
        need(isinstance(l, dict) and l.get("type") == "message", w + ": not a message envelope")
        m = l.get("message")
        need(isinstance(m, dict), w + ": message not an object")
        need(m.get("role") in ("user", "assistant", "system", "tool"), w + ": role %r" % m.get("role"))
        need(is_str(m, "content"), w + ": content not a string")
        need(m.get("reasoningContent") is None or is_str(m, "reasoningContent"),
             w + ": reasoningContent not a string")
        need(m.get("model") is None or is_str(m, "model"), w + ": model not a string")
        ts = m.get("timestamp")
        need(ts is None or (isinstance(ts, int) and not isinstance(ts, bool) and ts > 10**11),
             w + ": timestamp not epoch milliseconds: %r" % (ts,))
        for c in m.get("toolCalls") or []:
            need(m["role"] == "assistant", w + ": toolCalls on a %s message" % m["role"])
            f = c.get("function") or {}
            need(is_str(c, "id") and is_str(f, "name") and is_str(f, "arguments"),
                 w + ": toolCall needs id, function.name and function.arguments (a string)")
            try:
                json.loads(f["arguments"])
            except ValueError:
                raise Bad(w + ": arguments is not a JSON string")
            calls.add(c["id"])
        if m["role"] == "tool":
            need(is_str(m, "toolCallId") and m["toolCallId"] in calls,
                 w + ": tool message without the toolCallId of an earlier call")
    return len(lines)


# ---- OTLP/JSON: Jaeger, Phoenix, Langfuse ---------------------------------
# open-telemetry/opentelemetry-proto: opentelemetry/proto/trace/v1/trace.proto,
# common/v1/common.proto, resource/v1/resource.proto and
# docs/specification.md "JSON Protobuf Encoding": lowerCamelCase field
# names, trace and span ids as hex (not base64), enums as integers, 64-bit
# integers as decimal strings (numbers accepted).  Collectors and Jaeger
# decode with the proto's field set; a key outside it is not OTLP.
# Semantic conventions (resource): service.name is what Jaeger lists a
# trace under.
FIELDS = {
    "request": {"resourceSpans"},
    "resourceSpans": {"resource", "scopeSpans", "schemaUrl"},
    "resource": {"attributes", "droppedAttributesCount", "entityRefs"},
    "scopeSpans": {"scope", "spans", "schemaUrl"},
    "scope": {"name", "version", "attributes", "droppedAttributesCount"},
    "span": {"traceId", "spanId", "traceState", "parentSpanId", "flags", "name", "kind",
             "startTimeUnixNano", "endTimeUnixNano", "attributes", "droppedAttributesCount",
             "events", "droppedEventsCount", "links", "droppedLinksCount", "status"},
    "status": {"message", "code"},
    "event": {"timeUnixNano", "name", "attributes", "droppedAttributesCount"},
    "link": {"traceId", "spanId", "traceState", "attributes", "droppedAttributesCount", "flags"},
}
ANY = {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue",
       "bytesValue"}
HEX = re.compile(r"[0-9a-f]+\Z")


def keys_in(o, kind, w):
    need(isinstance(o, dict), w + ": %s not an object" % kind)
    extra = set(o) - FIELDS[kind]
    need(not extra, w + ": %s has keys outside the proto: %s" % (kind, sorted(extra)))


def u64(v, w):
    need((isinstance(v, str) and v.isdigit()) or (isinstance(v, int) and v >= 0),
         w + ": not a uint64 (decimal string): %r" % (v,))
    return int(v)


def any_value(v, w):
    need(isinstance(v, dict) and len(v) == 1 and set(v) <= ANY,
         w + ": AnyValue must hold exactly one of %s: %r" % (sorted(ANY), v))
    (k, x), = v.items()
    if k == "stringValue":
        need(isinstance(x, str), w + ": stringValue")
    elif k == "boolValue":
        need(isinstance(x, bool), w + ": boolValue")
    elif k == "intValue":
        need((isinstance(x, str) and re.fullmatch(r"-?\d+", x)) or
             (isinstance(x, int) and not isinstance(x, bool)), w + ": intValue")
    elif k == "doubleValue":
        need(isinstance(x, (int, float)) and not isinstance(x, bool), w + ": doubleValue")
    elif k == "arrayValue":
        need(isinstance(x, dict) and set(x) <= {"values"}, w + ": arrayValue")
        for y in x.get("values", []):
            any_value(y, w)
    elif k == "kvlistValue":
        need(isinstance(x, dict) and set(x) <= {"values"}, w + ": kvlistValue")
        attrs(x.get("values", []), w)


def attrs(a, w):
    need(isinstance(a, list), w + ": attributes not a list")
    seen = set()
    for kv in a:
        need(isinstance(kv, dict) and set(kv) <= {"key", "value"} and is_str(kv, "key"),
             w + ": KeyValue")
        need(kv["key"] not in seen, w + ": attribute %s twice" % kv["key"])
        seen.add(kv["key"])
        any_value(kv.get("value"), w + " " + kv["key"])
    return {kv["key"]: list(kv["value"].values())[0] for kv in a}


def check_otlp(docs):
    spans = {}
    for d in docs:
        keys_in(d, "request", "request")
        for rs in d.get("resourceSpans", []):
            keys_in(rs, "resourceSpans", "resourceSpans")
            keys_in(rs.get("resource", {}), "resource", "resource")
            ra = attrs(rs.get("resource", {}).get("attributes", []), "resource")
            need(isinstance(ra.get("service.name"), str) and ra["service.name"],
                 "resource without service.name")
            for ss in rs.get("scopeSpans", []):
                keys_in(ss, "scopeSpans", "scopeSpans")
                if "scope" in ss:
                    keys_in(ss["scope"], "scope", "scope")
                for s in ss.get("spans", []):
                    w = "span %r" % s.get("name")
                    keys_in(s, "span", w)
                    need(is_str(s, "name") and s["name"], w + ": no name")
                    t, i = s.get("traceId", ""), s.get("spanId", "")
                    need(len(t) == 32 and HEX.match(t) and set(t) != {"0"},
                         w + ": traceId not 32 lowercase hex digits, non-zero")
                    need(len(i) == 16 and HEX.match(i) and set(i) != {"0"},
                         w + ": spanId not 16 lowercase hex digits, non-zero")
                    p = s.get("parentSpanId", "")
                    need(p == "" or (len(p) == 16 and HEX.match(p)), w + ": parentSpanId")
                    need(s.get("kind", 0) in range(6), w + ": kind not an enum integer 0-5")
                    need(u64(s["startTimeUnixNano"], w) <= u64(s["endTimeUnixNano"], w),
                         w + ": ends before it starts")
                    if "status" in s:
                        keys_in(s["status"], "status", w)
                        need(s["status"].get("code", 0) in (0, 1, 2), w + ": status code")
                    attrs(s.get("attributes", []), w)
                    for e in s.get("events", []):
                        keys_in(e, "event", w)
                        u64(e["timeUnixNano"], w)
                        attrs(e.get("attributes", []), w)
                    need((t, i) not in spans, w + ": span id repeated in its trace")
                    spans[(t, i)] = s
    for (t, i), s in spans.items():
        p = s.get("parentSpanId", "")
        need(p == "" or (t, p) in spans, "span %r: parent %s not in its trace" % (s["name"], p))
    need(spans, "no spans")
    return len(spans)


def main():
    fmt, path = sys.argv[1:3]
    text = open(path, encoding="utf-8").read()
    try:
        if fmt == "otlp":
            # one request, or one a line (OTLP file exporter)
            docs = [json.loads(l) for l in text.splitlines() if l.strip()]
            n = check_otlp(docs)
        else:
            lines = [json.loads(l) for l in text.splitlines() if l.strip()]
            n = (check_claude_code if fmt == "claude_code" else check_sts)(lines)
    except Bad as e:
        print("%s: %s" % (fmt, e))
        return 1
    print("ok", n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
