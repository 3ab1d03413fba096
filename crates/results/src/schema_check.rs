//! A small JSON Schema checker for truebench's own schema files (`docs/schema/*.schema.json`):
//! it implements the keywords those files use — `$ref` to `#/$defs/…`, `type` (one or a list),
//! `properties`, `required`, `additionalProperties` (false or a schema), `items`, `enum`,
//! `const`, `oneOf`, `anyOf`, `minimum` — so tests can prove that documents match the schema
//! without a validator crate. An unknown keyword is an error, so a schema cannot silently use
//! something this checker ignores.

use serde_json::Value;

const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "title",
    "description",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "minimum",
];

/// Every violation of `schema` by `doc`, as `path: message` (empty = valid).
pub fn validate(schema: &Value, doc: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, schema, doc, "$", &mut errors);
    errors
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let name = r.strip_prefix("#/$defs/")?;
    root.get("$defs")?.get(name)
}

fn check(root: &Value, schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    if schema == &Value::Bool(true) {
        return;
    }
    let Some(s) = schema.as_object() else {
        errors.push(format!("{path}: schema is not an object: {schema}"));
        return;
    };
    for k in s.keys() {
        if !KNOWN.contains(&k.as_str()) {
            errors.push(format!("{path}: schema keyword `{k}` is not supported"));
        }
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        match resolve(root, r) {
            Some(target) => check(root, target, v, path, errors),
            None => errors.push(format!("{path}: unresolvable $ref {r}")),
        }
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)),
            _ => false,
        };
        if !ok {
            errors.push(format!("{path}: expected type {t}, found {}", short(v)));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            errors.push(format!(
                "{path}: {} is not one of {}",
                short(v),
                Value::Array(e.clone())
            ));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            errors.push(format!("{path}: expected {c}, found {}", short(v)));
        }
    }
    if let (Some(m), Some(x)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if x < m {
            errors.push(format!("{path}: {x} is below the minimum {m}"));
        }
    }
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let matching = alts
            .iter()
            .filter(|a| {
                let mut e = Vec::new();
                check(root, a, v, path, &mut e);
                e.is_empty()
            })
            .count();
        if matching != 1 {
            errors.push(format!(
                "{path}: matches {matching} of the oneOf alternatives (exactly one needed): {}",
                short(v)
            ));
        }
    }
    if let Some(alts) = s.get("anyOf").and_then(Value::as_array) {
        let any = alts.iter().any(|a| {
            let mut e = Vec::new();
            check(root, a, v, path, &mut e);
            e.is_empty()
        });
        if !any {
            errors.push(format!(
                "{path}: matches none of the anyOf alternatives: {}",
                short(v)
            ));
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(req) = s.get("required").and_then(Value::as_array) {
            for r in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    errors.push(format!("{path}: required property `{r}` is missing"));
                }
            }
        }
        for (k, val) in obj {
            let p = format!("{path}.{k}");
            match props.and_then(|ps| ps.get(k)) {
                Some(ps) => check(root, ps, val, &p, errors),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{path}: property `{k}` is not in the schema"))
                    }
                    Some(Value::Bool(true)) | None => {}
                    Some(extra) => check(root, extra, val, &p, errors),
                },
            }
        }
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            check(root, items, x, &format!("{path}[{i}]"), errors);
        }
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(80).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn catches_what_it_claims_to() {
        let schema = json!({
            "$defs": {"n": {"type": ["integer", "null"], "minimum": 0}},
            "type": "object",
            "required": ["a", "k"],
            "additionalProperties": false,
            "properties": {
                "a": {"$ref": "#/$defs/n"},
                "k": {"enum": ["x", "y"]},
                "l": {"type": "array", "items": {"type": "string"}},
                "o": {"oneOf": [{"type": "object", "required": ["p"]}, {"type": "null"}]}
            }
        });
        assert!(validate(&schema, &json!({"a": 1, "k": "x", "l": ["s"], "o": null})).is_empty());
        assert!(validate(&schema, &json!({"a": null, "k": "y", "o": {"p": 1}})).is_empty());
        let e = validate(
            &schema,
            &json!({"a": -1, "k": "z", "l": [1], "extra": 0, "o": {}}),
        );
        assert_eq!(e.len(), 5, "{e:#?}");
        assert!(e.iter().any(|x| x.contains("minimum")));
        assert!(e.iter().any(|x| x.contains("$.l[0]")));
        assert!(e.iter().any(|x| x.contains("`extra`")));
        assert!(e.iter().any(|x| x.contains("oneOf")));
        let e = validate(&schema, &json!({"k": "x"}));
        assert_eq!(e, vec!["$: required property `a` is missing".to_string()]);
        let e = validate(&json!({"pattern": "x"}), &json!("x"));
        assert!(e[0].contains("not supported"), "{e:?}");
    }
}
