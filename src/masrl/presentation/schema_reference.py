"""The trace schema as reference tables: one table per object (the trace itself, then each
definition), one row per property with its type, whether it is required and its description.
The book's schema chapter is generated from this, so it cannot drift from the schema file."""

from __future__ import annotations

import pandas as pd

from masrl.presentation.escaping import MarkdownText, html_text, markdown_code


def describe_type(spec: dict) -> str:
    """A short human reading of a property's type: enums listed, references named, bounds."""
    if "$ref" in spec:
        return spec["$ref"].rsplit("/", 1)[-1]
    if "enum" in spec:
        return "one of " + ", ".join(str(v) for v in spec["enum"])
    if "const" in spec:
        return f"exactly {spec['const']}"
    kind = spec.get("type", "any")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array" and "items" in spec:
        return f"array of {describe_type(spec['items'])}"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"object of name -> {describe_type(spec['additionalProperties'])}"
    bounds = [f"{word} {spec[key]}" for key, word in
              (("minimum", ">="), ("exclusiveMinimum", ">"), ("minItems", "items >="),
               ("minLength", "length >="))
              if key in spec]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def object_table(spec: dict) -> pd.DataFrame:
    required = set(spec.get("required", []))
    rows = [{"property": name, "type": describe_type(prop),
             "required": "yes" if name in required else "no",
             "description": prop.get("description") or _see_definition(prop)}
            for name, prop in spec.get("properties", {}).items()]
    return pd.DataFrame(rows, columns=["property", "type", "required", "description"])


def reference(schema: dict) -> dict[str, dict]:
    """``{section: {"description": ..., "table": DataFrame, "extra": bool}}`` for the trace
    object and each ``$defs`` entry, in file order; ``extra`` says whether properties not
    listed are allowed."""
    sections = {"trace": schema, **schema.get("$defs", {})}
    return {
        name: {"description": spec.get("description", ""), "table": object_table(spec),
               "extra": spec.get("additionalProperties", True) is not False}
        for name, spec in sections.items()
    }


def _see_definition(spec: dict) -> str:
    """Properties that only point to a definition are described by it (a section below)."""
    target = spec.get("$ref") or spec.get("items", {}).get("$ref", "")
    return f"See {target.rsplit('/', 1)[-1]} below." if target else ""


class Paragraph:
    """A paragraph of plain text as HTML, escaped. Shown as HTML rather than Markdown so that the
    book's typography leaves it as written: a flag such as ``--keep-content`` stays two hyphens
    (Sphinx's smart quotes turn ``--`` in Markdown prose into a dash)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self) -> str:
        return f'<p class="masrl-schema-description">{html_text(self.text)}</p>'

    def __repr__(self) -> str:
        return self.text


def heading(name: str) -> MarkdownText:
    """The heading of one object's section: its name as code."""
    return MarkdownText(f"### {markdown_code(name)}")


def description(section: dict) -> Paragraph:
    """One object's description from the schema, then whether it allows other properties."""
    extra = ("Other properties are allowed." if section["extra"]
             else "No other properties are allowed.")
    return Paragraph(f"{section['description']} {extra}".strip())
