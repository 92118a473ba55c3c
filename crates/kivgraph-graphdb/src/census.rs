//! A file's mentions as the database keeps them: one JSON object from name to count, in the
//! census's order (`{"Clone":2,"Debug":3}`) — half the bytes of a list of `{name, count}`
//! records, which matters because every save rewrites the column holding them.

use std::fmt;

use kivgraph_facts::Mention;
use serde::Deserializer;
use serde::de::{MapAccess, Visitor};

/// The census as one JSON object text.
pub(crate) fn to_json(mentions: &[Mention]) -> String {
    let mut out = String::with_capacity(mentions.len() * 12 + 2);
    out.push('{');
    for (i, mention) in mentions.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        // Quoting a string cannot fail.
        out.push_str(&serde_json::to_string(&mention.name).unwrap_or_default());
        out.push(':');
        out.push_str(&mention.count.to_string());
    }
    out.push('}');
    out
}

/// The census back from its text, its order kept.
pub(crate) fn from_json(text: &str) -> Result<Vec<Mention>, serde_json::Error> {
    serde_json::Deserializer::from_str(text).deserialize_map(InOrder)
}

struct InOrder;

impl<'de> Visitor<'de> for InOrder {
    type Value = Vec<Mention>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object from name to count")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut mentions = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((name, count)) = map.next_entry::<String, u32>()? {
            mentions.push(Mention { name, count });
        }
        Ok(mentions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_census_comes_back_in_its_order_with_its_escapes() {
        let census = vec![
            Mention {
                name: "zeta".into(),
                count: 1,
            },
            Mention {
                name: "a\"b\\c".into(),
                count: 30,
            },
        ];
        let text = to_json(&census);
        assert_eq!(text, r#"{"zeta":1,"a\"b\\c":30}"#);
        assert_eq!(from_json(&text).unwrap(), census);
        assert_eq!(from_json("{}").unwrap(), vec![]);
    }
}
