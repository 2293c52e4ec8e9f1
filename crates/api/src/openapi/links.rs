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

/// The mode prefix of a path: its sandbox or production half.
fn mode(path: &str) -> bool {
    path.starts_with("/v1/issuing/sandbox/")
}

/// How `op` takes `field`: as a parameter (query or path) or a body property.
fn takes(op: &Value, field: &str) -> Option<&'static str> {
    let parameter = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| p["name"] == field);
    let body = op
        .pointer("/requestBody/content/application~1json/schema/properties")
        .is_some_and(|p| p.get(field).is_some());
    match (parameter, body) {
        (true, _) => Some("parameter"),
        (false, true) => Some("body"),
        _ => None,
    }
}

pub(super) fn add(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object() else { return };
    let mut links = Vec::new();
    for (path, item) in paths {
        for method in item.as_object().into_iter().flatten().map(|(method, _)| method) {
            let Some(&(_, status, field, pointer)) = CREATORS.iter().find(|(suffix, ..)| path.ends_with(suffix)) else {
                continue;
            };
            let expression = format!("$response.body#{pointer}");
            for (_, other) in paths.iter().filter(|(p, _)| mode(p) == mode(path) && *p != path) {
                for other_op in other.as_object().into_iter().flatten().map(|(_, op)| op) {
                    let Some(id) = other_op["operationId"].as_str() else {
                        continue;
                    };
                    let link = match takes(other_op, field) {
                        Some("parameter") => json!({ "operationId": id, "parameters": { field: expression } }),
                        Some(_) => json!({ "operationId": id, "requestBody": { field: expression } }),
                        None => continue,
                    };
                    links.push((path.clone(), method.clone(), status, format!("{id}_with_{field}"), link));
                }
            }
        }
    }
    for (path, method, status, name, link) in links {
        if let Some(response) = doc["paths"][&path][&method]["responses"].get_mut(status) {
            response["links"][name] = link;
        }
    }
}
