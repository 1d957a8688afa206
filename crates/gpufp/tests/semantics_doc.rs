//! Keeps `docs/semantics.md` in step with `gpufp::policy::POLICIES`: one row per policy in the
//! "Policies" table, with the same default and status, no row for a policy
//! the code does not have, and one subsection per policy.

use gpufp::policy::POLICIES;

const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/semantics.md");
const HEADING: &str = "## Policies";
const COLUMNS: [&str; 5] = ["policy", "default", "alternatives", "evidence", "status"];

fn read_doc() -> String {
    std::fs::read_to_string(DOC_PATH).unwrap_or_else(|e| panic!("cannot read {DOC_PATH}: {e}"))
}

/// The cells of a Markdown table row, trimmed, without the outer pipes.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The header and body rows of the first table after the "## Policies" heading.
fn policies_table(doc: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = doc.lines().skip_while(|l| l.trim() != HEADING);
    assert!(
        lines.next().is_some(),
        "{DOC_PATH}: no `{HEADING}` heading found"
    );
    let table: Vec<&str> = lines
        .skip_while(|l| !l.trim_start().starts_with('|'))
        .take_while(|l| l.trim_start().starts_with('|'))
        .collect();
    assert!(
        table.len() >= 2,
        "{DOC_PATH}: no Markdown table after `{HEADING}`"
    );
    let header = cells(table[0]);
    let separator = cells(table[1]);
    assert!(
        separator
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':'))),
        "{DOC_PATH}: second line of the Policies table is not a separator: {}",
        table[1]
    );
    let rows = table[2..].iter().map(|l| cells(l)).collect();
    (header, rows)
}

#[test]
fn policies_table_has_the_expected_columns() {
    let (header, rows) = policies_table(&read_doc());
    assert_eq!(
        header, COLUMNS,
        "{DOC_PATH}: the Policies table's columns must be exactly {COLUMNS:?}"
    );
    for row in &rows {
        assert_eq!(
            row.len(),
            COLUMNS.len(),
            "{DOC_PATH}: Policies row has {} cells instead of {} (a `|` inside a cell?): {row:?}",
            row.len(),
            COLUMNS.len()
        );
    }
}

#[test]
fn every_policy_has_one_matching_row() {
    let (_, rows) = policies_table(&read_doc());
    for info in POLICIES {
        let name = format!("`{}`", info.name);
        let matching: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == name).collect();
        assert_eq!(
            matching.len(),
            1,
            "{DOC_PATH}: expected exactly one Policies row for {name}, found {}",
            matching.len()
        );
        let row = matching[0];
        let default = format!("`{}`", info.default);
        assert!(
            row[1].contains(&default),
            "{DOC_PATH}: row {name}: default cell {:?} should contain {default} \
             (PolicyInfo.default; Policies::default() is the model)",
            row[1]
        );
        assert_eq!(
            row[4],
            info.status.as_str(),
            "{DOC_PATH}: row {name}: status cell should be {:?} as POLICIES says",
            info.status.as_str()
        );
    }
}

#[test]
fn no_row_for_an_unknown_policy() {
    let (_, rows) = policies_table(&read_doc());
    let known: Vec<String> = POLICIES.iter().map(|i| format!("`{}`", i.name)).collect();
    for row in &rows {
        assert!(
            known.contains(&row[0]),
            "{DOC_PATH}: Policies row {:?} names no entry of gpufp::policy::POLICIES \
             (known: {known:?})",
            row[0]
        );
    }
    assert_eq!(
        rows.len(),
        POLICIES.len(),
        "{DOC_PATH}: the Policies table should have one row per POLICIES entry"
    );
}

#[test]
fn every_policy_has_a_subsection() {
    let doc = read_doc();
    for info in POLICIES {
        let heading = format!("### `{}`", info.name);
        let count = doc.lines().filter(|l| l.trim() == heading).count();
        assert_eq!(
            count, 1,
            "{DOC_PATH}: expected exactly one subsection `{heading}`, found {count}"
        );
    }
}
