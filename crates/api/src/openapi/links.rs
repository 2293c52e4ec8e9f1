//! OpenAPI links: the id an operation creates feeds every operation of
//! the same mode that names that id, so that a client generator or a
//! fuzzer goes from a registration to its cards and from a card to its
//! money paths.

use serde_json::{Value, json};

/// The operations that create an id: (path suffix, success status, the
/// id's name, where the answer holds it).
const CREATORS: [(&str, &str, &str, &str); 3] = [
    (
        "/cardholder/register_cardholder_synchronously",
        "201",
        "cardholder_id",
        "/data/cardholder_id",
    ),
    ("/cards/create_card", "200", "card_id", "/data/card_id"),
    ("/cards/activate_physical_card", "200", "card_id", "/data/card_id"),
];

fn is_sandbox(path: &str) -> bool {
    path.starts_with("/v1/issuing/sandbox/")
}

/// The link feeding `value` to `op` as its `field`, when `op` takes that
/// field: as a parameter (query or path) or a body property.
fn link(op: &Value, field: &str, value: &str) -> Option<Value> {
    let id = op["operationId"].as_str()?;
    let parameter = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| p["name"] == field);
    let body = op
        .pointer("/requestBody/content/application~1json/schema/properties")
        .is_some_and(|p| p.get(field).is_some());
    match (parameter, body) {
        (true, _) => Some(json!({ "operationId": id, "parameters": { field: value } })),
        (false, true) => Some(json!({ "operationId": id, "requestBody": { field: value } })),
        (false, false) => None,
    }
}

pub(super) fn add(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object() else { return };
    let mut links = Vec::new();
    for (path, item) in paths {
        let Some(&(_, status, field, pointer)) = CREATORS.iter().find(|(suffix, ..)| path.ends_with(suffix)) else {
            continue;
        };
        let value = format!("$response.body#{pointer}");
        let others = paths
            .iter()
            .filter(|(p, _)| is_sandbox(p) == is_sandbox(path) && *p != path);
        let fed: Vec<Value> = others
            .flat_map(|(_, other)| other.as_object().into_iter().flatten())
            .filter_map(|(_, op)| link(op, field, &value))
            .collect();
        for method in item.as_object().into_iter().flatten().map(|(method, _)| method) {
            for l in &fed {
                let name = format!("{}_with_{field}", l["operationId"].as_str().unwrap_or_default());
                links.push((path.clone(), method.clone(), status, name, l.clone()));
            }
        }
    }
    for (path, method, status, name, link) in links {
        if let Some(response) = doc["paths"][&path][&method]["responses"].get_mut(status) {
            response["links"][name] = link;
        }
    }
}
