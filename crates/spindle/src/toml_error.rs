//! TOML errors that point at the offending line. A table read through an internally
//! tagged enum (`[device]`, `kind = "..."`) is buffered before it is checked, so the
//! parser's error points at the table's header, not at the key or value it names.
//! [`parse`] then looks for that key or value among the table's lines (its subtables
//! included) and, if it appears on exactly one line, points there instead.

use serde::de::DeserializeOwned;

/// Parses `text` as a `T`; an error is toml's message, pointing at the line of the key
/// or value it names when toml could only point at a table's header.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| message(text, &e))
}

/// The error's text, pointing at the named key's or value's line where toml pointed at
/// a table's header.
pub fn message(text: &str, e: &toml::de::Error) -> String {
    refined(text, e).unwrap_or_else(|| e.to_string())
}

fn refined(text: &str, e: &toml::de::Error) -> Option<String> {
    let span = e.span()?;
    // Only where toml pointed at a whole table (its header's `[`), not at a name.
    if !text.get(span.start..)?.starts_with('[') {
        return None;
    }
    let header_line = text.get(..span.start)?.matches('\n').count();
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.get(header_line)?.trim();
    let name = table_name(header)?;
    let msg = e.message();
    let token = named_token(msg)?;
    // The table's own lines and its subtables', up to the next table outside it (or
    // the next entry of the same array of tables); lines inside multi-line strings
    // are skipped, and one inside an inline table makes the search give up.
    let mut found = Vec::new();
    let mut table = name.to_string();
    let mut in_string = false;
    for (i, line) in lines.iter().enumerate().skip(header_line + 1) {
        let t = line.trim();
        let quotes = t.matches("\"\"\"").count() + t.matches("\'\'\'").count();
        if in_string {
            in_string = quotes % 2 == 0;
            continue;
        }
        if let Some(other) = table_name(t) {
            let repeated = other == name && t.starts_with("[[");
            if repeated || (other != name && !other.starts_with(&format!("{name}."))) {
                break;
            }
            table = other.to_string();
            continue;
        }
        in_string = quotes % 2 == 1;
        if mentions(t, &token) || (t.contains('{') && t.contains(token.text())) {
            found.push((i, table.clone()));
        }
    }
    let [(at, ref table)] = found[..] else {
        return None;
    };
    let line = lines[at];
    let column = line.chars().count() - line.trim_start().chars().count();
    let number = (at + 1).to_string();
    let gutter = " ".repeat(number.len() + 1);
    Some(format!(
        "TOML parse error at line {number}, column {}\n{gutter}|\n{number} | {line}\n{gutter}| {}{}\n{msg} (in [{table}])\n",
        column + 1,
        " ".repeat(column),
        "^".repeat(line.trim().chars().count().max(1)),
    ))
}

/// `[a.b]` or `[[a.b]]` → `a.b`.
fn table_name(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("[[").and_then(|l| l.split("]]").next());
    let inner = inner.or_else(|| line.strip_prefix('[').and_then(|l| l.split(']').next()))?;
    Some(inner.trim())
}

/// What the message names: a key (`unknown field `k``, `missing field `k`` has no
/// line) or a value (`unknown variant `v``, `invalid value: integer `7``, `invalid
/// type: string "v"`, `invalid type: floating point `2.5``).
fn named_token(msg: &str) -> Option<Token> {
    if msg.starts_with("missing field") {
        return None;
    }
    let backticked = || msg.split('`').nth(1).map(str::to_string);
    if msg.starts_with("unknown field") {
        return backticked().map(Token::Key);
    }
    if msg.starts_with("unknown variant") || msg.starts_with("invalid value") {
        return backticked().map(Token::Value);
    }
    if let Some(rest) = msg.strip_prefix("invalid type: string \"") {
        return rest.split('"').next().map(|v| Token::Value(v.to_string()));
    }
    // `invalid type: floating point `2.5`, expected u32` (an integer, a boolean alike).
    if msg.starts_with("invalid type:") {
        return backticked().map(Token::Value);
    }
    None
}

enum Token {
    Key(String),
    Value(String),
}

impl Token {
    fn text(&self) -> &str {
        match self {
            Token::Key(t) | Token::Value(t) => t,
        }
    }
}

/// Whether a `key = value` line sets that key or holds that value.
fn mentions(line: &str, token: &Token) -> bool {
    let Some((key, value)) = line.split_once('=') else {
        return false;
    };
    let (key, value) = (key.trim().trim_matches('"'), value.trim());
    match token {
        Token::Key(k) => key == k,
        Token::Value(v) => {
            let value = value.split('#').next().unwrap_or("").trim();
            value == v || value.trim_matches('"') == v || value.trim_matches('\'') == v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(serde::Deserialize, Debug)]
    #[serde(tag = "kind", rename_all = "kebab-case")]
    enum Shape {
        #[allow(dead_code)]
        Square(Side),
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Side {
        #[allow(dead_code)]
        side: Option<u32>,
        #[allow(dead_code)]
        colour: Option<Colour>,
        #[allow(dead_code)]
        inner: Option<BTreeMap<String, u32>>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(rename_all = "kebab-case")]
    enum Colour {
        Red,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[allow(dead_code)]
        shape: Shape,
        #[allow(dead_code)]
        other: Option<BTreeMap<String, String>>,
    }

    fn error(text: &str) -> String {
        parse::<File>(text).unwrap_err()
    }

    #[test]
    fn a_key_or_value_inside_a_tagged_table_is_pointed_at() {
        let text =
            "[shape]\nkind = \"square\"\nside = 3\ncolour = \"blue\"\n[other]\nx = \"blue\"\n";
        let e = error(text);
        assert!(e.contains("line 4, column 1"), "{e}");
        assert!(e.contains("4 | colour = \"blue\""), "{e}");
        assert!(e.contains("unknown variant `blue`"), "{e}");
        let e = error("[shape]\nkind = \"square\"\n  sides = 3\n");
        assert!(e.contains("line 3, column 3"), "{e}");
        assert!(e.contains("unknown field `sides`"), "{e}");
        let e = error("[shape]\nkind = \"square\"\n\nside = 2.5\n");
        assert!(e.contains("line 4, column 1"), "{e}");
        assert!(e.contains("floating point `2.5`"), "{e}");
        let e = error("[shape]\nkind = \"square\"\n[shape.inner]\na = \"x\"\n");
        assert!(
            e.contains("line 4") && e.contains("(in [shape.inner])"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_table_keeps_the_parsers_location() {
        // toml points inside the brackets: the table's name is what is unknown, not a
        // key of the same name inside it.
        let e = error("[shape]\nkind = \"square\"\n[rogue]\nrogue = 1\n");
        assert!(!e.contains("line 4"), "{e}");
    }

    #[test]
    fn a_value_also_in_an_inline_table_is_not_guessed_at() {
        let text = "[shape]\nkind = \"square\"\ncolour = \"blue\"\nx = { colour = \"blue\" }\n";
        let e = error(text);
        assert!(!e.contains("line 3"), "{e}");
    }

    #[test]
    fn ambiguous_or_unnamed_errors_keep_the_parsers_location() {
        // The value twice in the table: no single line to name.
        let text = "[shape]\nkind = \"square\"\ncolour = \"blue\"\n[shape.inner]\nb = \"blue\"\n";
        let e = error(text);
        assert!(e.contains("line 1"), "{e}");
        let e = error("[shape]\nkind = \"circle\"\n");
        assert!(e.contains("unknown variant `circle`"), "{e}");
        assert!(e.contains("line 2"), "{e}");
        let e = error("shape = 3\n");
        assert!(!e.is_empty());
    }
}
