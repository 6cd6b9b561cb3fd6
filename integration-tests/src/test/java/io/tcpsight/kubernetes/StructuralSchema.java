package io.tcpsight.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A custom resource checked against its CRD's structural OpenAPI v3 schema the way an API server
 * with strict field validation checks it: types, enums, required fields, and no field the schema
 * does not name (unless it preserves unknown fields or allows any key). Formats, patterns and CEL
 * rules are the server's business and are not checked here.
 */
final class StructuralSchema {
    private final JsonNode root;

    StructuralSchema(JsonNode root) {
        this.root = root;
    }

    /** Every problem found, as "path: what", empty when the resource fits. */
    List<String> problems(JsonNode resource) {
        List<String> problems = new ArrayList<>();
        check(root, resource, "", problems, true);
        return problems;
    }

    /**
     * @param closed whether a field the schema does not name is a problem: not inside a oneOf or
     *     anyOf branch, which only says which fields must be there
     */
    private static void check(JsonNode schema, JsonNode value, String path, List<String> problems, boolean closed) {
        if (value == null || value.isNull()) {
            if (!schema.path("nullable").asBoolean(false) && schema.has("type")) {
                problems.add(path + ": null where " + schema.path("type").asText() + " is expected");
            }
            return;
        }
        if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
            if (!value.isIntegralNumber() && !value.isTextual()) {
                problems.add(path + ": " + value + " is neither an integer nor a string");
            }
            return;
        }
        String type = schema.path("type").asText("");
        switch (type) {
            case "object":
                if (!value.isObject()) {
                    problems.add(path + ": " + kind(value) + " where an object is expected");
                    return;
                }
                checkObject(schema, value, path, problems, closed);
                break;
            case "array":
                if (!value.isArray()) {
                    problems.add(path + ": " + kind(value) + " where an array is expected");
                    return;
                }
                for (int i = 0; i < value.size(); i++) {
                    if (schema.has("items")) {
                        check(schema.get("items"), value.get(i), path + "[" + i + "]", problems, closed);
                    }
                }
                break;
            case "string":
                if (!value.isTextual()) {
                    problems.add(path + ": " + kind(value) + " where a string is expected");
                }
                break;
            case "integer":
                if (!value.isIntegralNumber()) {
                    problems.add(path + ": " + kind(value) + " where an integer is expected");
                }
                break;
            case "number":
                if (!value.isNumber()) {
                    problems.add(path + ": " + kind(value) + " where a number is expected");
                }
                break;
            case "boolean":
                if (!value.isBoolean()) {
                    problems.add(path + ": " + kind(value) + " where a boolean is expected");
                }
                break;
            default:
                if (value.isObject() && schema.has("properties")) {
                    checkObject(schema, value, path, problems, closed);
                }
        }
        if (schema.has("enum")) {
            boolean listed = false;
            for (JsonNode allowed : schema.get("enum")) {
                listed |= allowed.asText().equals(value.asText());
            }
            if (!listed) {
                problems.add(path + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        for (JsonNode branch : schema.path("allOf")) {
            check(branch, value, path, problems, closed);
        }
        checkAlternatives(schema, "oneOf", value, path, problems);
        checkAlternatives(schema, "anyOf", value, path, problems);
    }

    private static void checkObject(
            JsonNode schema, JsonNode value, String path, List<String> problems, boolean closed) {
        for (JsonNode required : schema.path("required")) {
            if (!value.has(required.asText())) {
                problems.add(path + ": required field " + required.asText() + " is missing");
            }
        }
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.get("additionalProperties");
        boolean open = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
                || (additional != null && additional.isBoolean() && additional.asBoolean());
        // an object schema that names no field and no value schema (metadata, say) takes any field
        boolean freeForm = properties.size() == 0 && additional == null;
        Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String fieldPath = path + "." + field.getKey();
            if (properties.has(field.getKey())) {
                check(properties.get(field.getKey()), field.getValue(), fieldPath, problems, closed);
            } else if (additional != null && additional.isObject()) {
                check(additional, field.getValue(), fieldPath, problems, closed);
            } else if (closed && !open && !freeForm) {
                problems.add(fieldPath + ": unknown field");
            }
        }
    }

    /** oneOf: exactly one branch fits; anyOf: at least one. Branches name required fields or sub-schemas. */
    private static void checkAlternatives(
            JsonNode schema, String keyword, JsonNode value, String path, List<String> problems) {
        if (!schema.has(keyword)) {
            return;
        }
        int fitting = 0;
        for (JsonNode branch : schema.get(keyword)) {
            List<String> branchProblems = new ArrayList<>();
            check(branch, value, path, branchProblems, false);
            if (branchProblems.isEmpty()) {
                fitting++;
            }
        }
        boolean fits = keyword.equals("oneOf") ? fitting == 1 : fitting >= 1;
        if (!fits) {
            problems.add(path + ": " + fitting + " of the " + keyword + " alternatives fit");
        }
    }

    private static String kind(JsonNode value) {
        return value.isTextual()
                ? "the string \"" + value.asText() + "\""
                : value.getNodeType().toString().toLowerCase();
    }
}
