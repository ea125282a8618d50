//! The page of `gdlc view`: one HTML file holding its style, its script and the match as JSON,
//! so that it opens anywhere with no network.

use super::model::View;

/// The page's style sheet.
const STYLE: &str = include_str!("page.css");

/// The page's script: it draws the match from the JSON in `#match-data`.
const SCRIPT: &str = include_str!("page.js");

/// Text escaped for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The match as JSON that can sit inside a `<script>` element: no `<` in it can close one.
fn data(view: &View) -> String {
    // A view holds strings and numbers only, which always serialize.
    let json = serde_json::to_string(view).unwrap_or_else(|_| "{}".to_string());
    json.replace('<', "\\u003c")
}

/// The whole page of `view`.
pub fn page(view: &View) -> String {
    let title = escape(&view.title);
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gdlc view">
<title>{title} · gdlc view</title>
<style>
{STYLE}</style>
</head>
<body>
<header><h1 id="title">{title}</h1><div id="meta"></div><ul id="roles"></ul></header>
<nav id="controls">
<button id="first" title="first state">|◀</button>
<button id="prev" title="previous state (←)">◀</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<button id="next" title="next state (→)">▶</button>
<button id="last" title="last state">▶|</button>
<span id="step-label"></span>
</nav>
<div id="timeline" hidden></div>
<main>
<section id="boards"></section>
<aside>
<section id="moves"></section>
<ul id="legend"></ul>
<h2 id="facts-title">Other facts</h2>
<ul id="facts"></ul>
</aside>
</main>
<section id="notes"></section>
<script type="application/json" id="match-data">{data}</script>
<script>
{SCRIPT}</script>
</body>
</html>
"#,
        data = data(view)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::model::{head, Kind};

    #[test]
    fn no_text_of_the_match_can_close_the_script() {
        let view = head("</script><b>".into(), Kind::Trace, vec!["a</script>".into()]);
        let page = page(&view);
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(page.contains("&lt;/script&gt;&lt;b&gt;"));
        assert!(!page.contains("http://") && !page.contains("https://"));
    }
}
