//! Each tool's input schema, generated from its argument type in `kivgraph-query`, and the
//! check of a call's arguments against it: a field the schema does not name is refused
//! (argument types share their selector, paging and walk fields by flattening, which serde
//! cannot combine with refusing unknown fields, so the schema does it).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The input schema of a tool taking `T`: plain JSON Schema an MCP client reads without
/// resolving references — optional fields are simply not required, and an object takes no
/// field it does not name.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(root) = value.as_object_mut() {
        // The tool describes itself; a flattened type's own words are not the tool's.
        root.remove("title");
        root.remove("description");
    }
    tidy(&mut value);
    match value {
        Value::Object(schema) => schema,
        _ => Map::new(),
    }
}

/// Adds the properties `other` declares to `schema` (an argument every tool of a kind shares,
/// generated from its own type).
pub fn with_properties_of(schema: &mut Map<String, Value>, other: Map<String, Value>) {
    let Some(Value::Object(added)) = other.get("properties") else {
        return;
    };
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        for (name, property) in added {
            properties.insert(name.clone(), property.clone());
        }
    }
}

/// Drops what generation adds for Rust's sake (`null` beside an optional field's type, an
/// integer's width, a doc comment's line breaks), and closes every object with properties.
fn tidy(value: &mut Value) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    if let Some(Value::String(description)) = object.get_mut("description") {
        *description = description.replace('\n', " ");
    }
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
    if object.get("type").and_then(Value::as_str) == Some("integer") {
        object.remove("format");
    }
    if object.contains_key("properties") {
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.values_mut().for_each(tidy);
    }
    if let Some(items) = object.get_mut("items") {
        tidy(items);
    }
}

/// The first field of `arguments` (or of an object nested in it) that `schema` does not name,
/// as serde words it, with the fields it does.
pub fn unknown_field(
    arguments: &Map<String, Value>,
    schema: &Map<String, Value>,
) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object)?;
    for (name, value) in arguments {
        let Some(field) = properties.get(name).and_then(Value::as_object) else {
            let expected: Vec<String> = properties.keys().map(|k| format!("`{k}`")).collect();
            return Some(format!(
                "unknown field `{name}`, expected one of {}",
                expected.join(", ")
            ));
        };
        let items = field.get("items").and_then(Value::as_object);
        let nested = match value {
            Value::Object(object) => Some((object, field)),
            _ => None,
        };
        let in_items = match (value, items) {
            (Value::Array(elements), Some(items)) => elements
                .iter()
                .filter_map(Value::as_object)
                .find_map(|element| unknown_field(element, items)),
            _ => None,
        };
        if let Some(found) = in_items.or_else(|| nested.and_then(|(o, s)| unknown_field(o, s))) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use kivgraph_query::{
        FileOutlineArgs, FindByIntentArgs, FindReferencesArgs, FindSymbolArgs, GetSourceArgs,
        TraceDependenciesArgs,
    };
    use serde_json::json;

    use super::*;

    fn schema<T: JsonSchema>() -> Value {
        Value::Object(input_schema::<T>())
    }

    #[test]
    fn a_schema_is_plain_closed_json_schema_with_the_fields_and_bounds_of_its_type() {
        let walk = schema::<TraceDependenciesArgs>();
        let properties: Vec<&String> = walk["properties"].as_object().unwrap().keys().collect();
        // The selector, the walk with its page, then the tool's own fields.
        assert_eq!(
            properties,
            [
                "stable_key",
                "repository",
                "path",
                "qualified_name",
                "depth",
                "max_nodes",
                "edge_kinds",
                "confidence",
                "include_derived",
                "limit",
                "cursor",
                "response_format",
                "view",
                "language",
                "repo"
            ]
        );
        assert_eq!(walk["additionalProperties"], json!(false));
        assert_eq!(walk["type"], json!("object"));
        assert!(walk.get("required").is_none() && walk.get("$schema").is_none());
        assert_eq!(
            walk["properties"]["depth"],
            json!({"type": "integer", "minimum": 1, "maximum": 5, "default": 3})
        );
        assert_eq!(walk["properties"]["stable_key"]["type"], json!("string"));
        assert_eq!(
            walk["properties"]["view"]["enum"],
            json!(["compact", "full"])
        );
    }

    #[test]
    fn enumerations_come_from_the_vocabulary() {
        let references = schema::<FindReferencesArgs>();
        assert_eq!(
            references["properties"]["confidence"]["enum"],
            json!([
                "EXACT_TYPECHECKED",
                "EXACT_DECLARATION_MAPPED",
                "EXACT_PACKAGE_MAPPED",
                "STRUCTURAL_CERTAIN",
                "CANDIDATE",
                "UNRESOLVED"
            ])
        );
        let kinds = references["properties"]["edge_kinds"]["items"]["enum"]
            .as_array()
            .unwrap();
        assert!(kinds.contains(&json!("CALLS_DIRECT")) && kinds.contains(&json!("*")));
        assert!(
            !kinds.contains(&json!("CONTAINS")),
            "not a reference relation"
        );
    }

    #[test]
    fn required_fields_and_a_tool_s_own_page_size_are_stated() {
        assert_eq!(schema::<FindSymbolArgs>()["required"], json!(["name"]));
        let outline = schema::<FileOutlineArgs>();
        assert_eq!(outline["required"], json!(["repository", "path"]));
        assert_eq!(outline["properties"]["limit"]["default"], json!(200));
        let intent = schema::<FindByIntentArgs>();
        assert_eq!(intent["properties"]["limit"]["maximum"], json!(50));
        assert_eq!(intent["properties"]["limit"]["default"], json!(10));
        let source = schema::<GetSourceArgs>();
        assert_eq!(source["properties"]["symbols"]["maxItems"], json!(20));
        assert_eq!(
            source["properties"]["symbols"]["items"]["additionalProperties"],
            json!(false)
        );
    }

    #[test]
    fn a_field_the_schema_does_not_name_is_found_at_any_depth() {
        let arguments = |value: Value| value.as_object().unwrap().clone();
        let walk = input_schema::<TraceDependenciesArgs>();
        assert_eq!(
            unknown_field(
                &arguments(json!({"qualified_name": "f", "depth": 2})),
                &walk
            ),
            None
        );
        let refused = unknown_field(&arguments(json!({"verbose": true})), &walk).unwrap();
        assert!(
            refused.starts_with("unknown field `verbose`, expected one of `stable_key`"),
            "{refused}"
        );
        let source = input_schema::<GetSourceArgs>();
        let nested = json!({"symbols": [{"qualified_name": "f"}, {"name": "g"}]});
        assert!(
            unknown_field(&arguments(nested), &source)
                .unwrap()
                .starts_with("unknown field `name`")
        );
    }

    #[test]
    fn index_project_names_every_field_of_a_project_as_required() {
        let schema = schema::<crate::index_project::IndexProjectArgs>();
        let project = &schema["properties"]["projects"]["items"];
        assert_eq!(project["required"], json!(["name", "path", "languages"]));
        assert_eq!(project["additionalProperties"], json!(false));
        assert_eq!(schema["properties"]["confirmed"]["type"], json!("boolean"));
        assert!(schema.get("required").is_none());
    }
}
