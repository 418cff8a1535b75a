"""Every template under mzpay/messages/templates, found here rather than listed (new messages are
checked without being named), rendered through mzpay.messages' own path with hostile merchant
and payer strings in every variable it reads: the HTML ones escape them, none lets a control
character (a line break that would start a header or a new SMS line, an escape, a bidi
override) through, and a link comes out as it went in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jinja2 import meta

from mzpay import messages

HOSTILE = "<script>alert('x')</script> \"Loja\" & Filhos\r\nBcc: evil@example.com\x1b[31m\u202eabc\x00"
LINK = "https://collection.mz.mzpay.example/pay/cr_01KB3F9V2XQ7M8N4P5R6S7T8VW?a=1&b=2"
CONTROLS = ("\r", "\x1b", "\u202e", "\x00", "\nBcc")


class Hostile(str):
    """A merchant's string wherever a template reads one: as a value, an attribute, an item, or
    the one element of a list it loops over."""

    def __getattr__(self, name: str) -> Hostile:
        if name.startswith("__"):
            raise AttributeError(name)
        return Hostile(HOSTILE)

    def __getitem__(self, key: Any) -> Any:
        return Hostile(HOSTILE) if isinstance(key, str) else str.__getitem__(self, key)

    def __iter__(self) -> Iterator[Any]:
        return iter([Hostile(HOSTILE)])


def templates() -> list[str]:
    names = sorted(path.name for path in (messages.HERE / "templates").iterdir() if path.is_file())
    assert "collection_request.html" in names  # the folder is the one rendered
    return names


def variables(name: str) -> set[str]:
    """What `name` reads, with what the templates it extends or includes read."""
    env = messages.environment("pt")
    parsed = env.parse((messages.HERE / "templates" / name).read_text(encoding="utf-8"))
    found = meta.find_undeclared_variables(parsed) - {"lang", "gettext", "ngettext", "_"}
    for other in meta.find_referenced_templates(parsed):
        found |= variables(str(other))
    return found


@pytest.mark.parametrize("language", ["pt", "en"])
@pytest.mark.parametrize("name", templates())
def test_every_template_escapes_html_and_drops_control_characters(name: str, language: str) -> None:
    context: dict[str, Any] = {var: Hostile(HOSTILE) for var in variables(name)}
    if "link" in context:
        context["link"] = LINK
    rendered = messages._render(name, language, context)
    assert not [c for c in CONTROLS if c in rendered], (name, rendered)
    if name.endswith(".html"):
        if set(context) - {"link"}:  # a partial of the link alone has no merchant's text to escape
            assert "<script>" not in rendered and "&lt;script&gt;" in rendered, (name, rendered)
            assert '"Loja"' not in rendered and "&amp; Filhos" in rendered
        if "link" in context:
            assert f'href="{LINK.replace("&", "&amp;")}"' in rendered  # the payment link, as it is
    elif "link" in context:
        assert LINK in rendered
    assert "Bcc: evil@example.com" not in rendered.splitlines()  # never a line of its own


def test_the_templates_are_found_not_listed() -> None:
    kinds = {name.split(".")[0] for name in templates()}
    assert "collection_request" in kinds
    assert all(variables(name) for name in templates())  # each reads something to escape
