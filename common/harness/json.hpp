// The JSON the harness writes (a grading binary's verdict): objects built member by member, strings
// escaped, numbers that JSON cannot hold (inf, NaN) written as null.
#pragma once

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace gemm {

// s as the inside of a JSON string: quotes, backslashes and every control character escaped.
inline std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        const char* named = c == '\b'   ? "\\b"
                            : c == '\f' ? "\\f"
                            : c == '\n' ? "\\n"
                            : c == '\r' ? "\\r"
                            : c == '\t' ? "\\t"
                                        : nullptr;
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (named) {
            o += named;
        } else if (static_cast<unsigned char>(c) < 0x20) {  // the other control characters
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
            o += hex;
        } else {
            o += c;
        }
    }
    return o;
}

// One JSON object, its members in the order they were added. str() writes it on one line, or one
// member a line when `indent` is given (an array member's items one a line too).
class JsonObject {
public:
    JsonObject& add(const std::string& key, const std::string& s) {
        return raw(key, "\"" + json_escape(s) + "\"");
    }
    JsonObject& add(const std::string& key, const char* s) { return add(key, std::string(s)); }
    JsonObject& add(const std::string& key, bool b) { return raw(key, b ? "true" : "false"); }
    JsonObject& add(const std::string& key, double x) {
        if (!std::isfinite(x)) return raw(key, "null");
        std::ostringstream s;
        s << x;
        return raw(key, s.str());
    }
    JsonObject& add(const std::string& key, float x) { return add(key, double(x)); }
    JsonObject& add(const std::string& key, long long x) { return raw(key, std::to_string(x)); }
    JsonObject& add(const std::string& key, int x) { return add(key, (long long)x); }
    JsonObject& add(const std::string& key, unsigned long long x) {
        return raw(key, std::to_string(x));
    }
    JsonObject& add(const std::string& key, unsigned long x) {
        return add(key, (unsigned long long)x);
    }
    JsonObject& add(const std::string& key, const std::vector<JsonObject>& items) {
        members_.push_back({key, "", items});
        return *this;
    }

    std::string str(const std::string& indent = "") const {
        const std::string nl = indent.empty() ? "" : "\n", in = indent, in2 = indent + indent;
        std::string o = "{" + nl;
        for (std::size_t i = 0; i < members_.size(); ++i) {
            const Member& m = members_[i];
            o += (i ? "," + (nl.empty() ? std::string(" ") : nl) : "") + in + "\"" +
                 json_escape(m.key) + "\": ";
            if (!m.value.empty()) {
                o += m.value;
                continue;
            }
            if (m.items.empty()) {
                o += "[]";
                continue;
            }
            o += "[" + nl;
            for (std::size_t j = 0; j < m.items.size(); ++j)
                o += (j ? "," + (nl.empty() ? std::string(" ") : nl) : "") + in2 + m.items[j].str();
            o += nl + (nl.empty() ? "" : in) + "]";
        }
        return o + nl + "}";
    }

private:
    struct Member {
        std::string key, value;  // value: the member's JSON; empty for an array of objects
        std::vector<JsonObject> items;
    };
    JsonObject& raw(const std::string& key, const std::string& json) {
        members_.push_back({key, json, {}});
        return *this;
    }
    std::vector<Member> members_;
};

}  // namespace gemm
