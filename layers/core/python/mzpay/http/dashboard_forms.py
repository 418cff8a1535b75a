"""The dashboard's form and query helpers (mzpay.http.dashboard serves the pages): a form's
fields within their maxima (refused, never cut), a list's query, a file's short-lived link, the
dashboard's own address for the links its e-mails carry, and a form refused before its route (a card
number in it) answered by that route as its own refusal."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.http.body import content_type, raw_body
from mzpay.http.checkout_page import form
from mzpay.http.dashboard import HTML, MAX_TEXT_PART, REFUSED_BEFORE_ROUTE, Visit, current
from mzpay.http.params import Response

MAX_QUERY = 200  # a list's filter


def texts(**maxima: int) -> dict[str, str]:
    """The form's fields named by `maxima`, stripped: 400 `invalid_request` naming every one
    longer than its maximum (field code `too_long`), never cut short."""
    sent = current().fields()
    values = {name: sent.get(name, "").strip() for name in maxima}
    long = [
        FieldError(name, "too_long", f"at most {maxima[name]} characters")
        for name in maxima
        if len(values[name]) > maxima[name]
    ]
    if long:
        names = ", ".join(error.field for error in long)
        raise ServiceError(400, "invalid_request", f"The request has invalid fields: {names}.", errors=long)
    return values


def bounded(name: str, maximum: int) -> str:
    """The form's field `name`, stripped; longer than `maximum` characters is 400 naming it (a form
    field has a maximum: it is refused, never cut): `texts` of one field."""
    return texts(**{name: maximum})[name]


def chosen(names: tuple[str, ...]) -> dict[str, str]:
    """The query's parameters of `names` that are not blank, stripped; one longer than MAX_QUERY
    is 400 naming it (the use case judges the rest as the API does)."""
    asked = current().event.query_string_parameters or {}
    picked = {name: str(asked[name]).strip() for name in names if str(asked.get(name) or "").strip()}
    for name, value in picked.items():
        if len(value) > MAX_QUERY:
            raise ServiceError(400, "invalid_request", f"{name}: at most {MAX_QUERY} characters.")
    return picked


def to_file(link: str) -> Response[str]:
    """303 to a file's short-lived link (a report's presigned GET): the link is in this answer's
    Location only (no-store, no referrer), in no page, log or audit record."""
    visit = current()
    headers = {"Location": link, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    return Response(303, HTML, "", headers=headers, cookies=visit.cookies or None)


def site(visit: Visit) -> str:
    """The dashboard's own address, for the links its e-mails carry (an invitation, a reset): the
    domain name API Gateway answered on (on AWS not a header the browser chose) and the stage;
    https but on the loopback (the local stack)."""
    domain = str(visit.event.request_context.domain_name or "")
    local = domain.split(":")[0] in ("127.0.0.1", "localhost")
    return f"{'http' if local else 'https'}://{domain}{visit.base}"


def answers_refusals(app: Any) -> None:
    """A form the service refuses before any route runs (a card number in it, mzpay.http.card_screen;
    bytes no route could read) is answered by its route as a refusal of its own: the form again, in
    the page's language, with its CSRF token, the route seeing none of its fields but the CSRF token
    (the audit trail records the refusal once, without the body: mzpay.http.resolver)."""

    def refusal_page(event: dict[str, Any], error: ServiceError) -> dict[str, Any]:
        sent = form_of(event)
        body = urlencode({"csrf_token": sent["csrf_token"]}) if "csrf_token" in sent else ""
        headers = {k: v for k, v in (event.get("headers") or {}).items() if k.lower() != "content-type"}
        many = {k: v for k, v in (event.get("multiValueHeaders") or {}).items() if k.lower() != "content-type"}
        urlencoded = "application/x-www-form-urlencoded"  # what is left of a multipart form too
        refused = {
            **event,
            "headers": {**headers, "Content-Type": urlencoded},
            "multiValueHeaders": {**many, "Content-Type": [urlencoded]},
            "body": body,
            "isBase64Encoded": False,
            REFUSED_BEFORE_ROUTE: error,
        }
        answer: dict[str, Any] = app.resolve(refused, None)
        return answer

    app.mzpay_refusal_page = refusal_page


def form_of(event: dict[str, Any]) -> dict[str, str]:
    """A raw event's form fields (the last of each name; a multipart form's text parts); none when
    the body is no form."""
    from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

    media = content_type(event)
    try:
        if media.lower().startswith("multipart/form-data"):
            from mzpay.domain.common.files import form_parts

            return form_parts(raw_body(event), media, MAX_TEXT_PART).fields
        return form(APIGatewayProxyEvent(event))
    except (ValueError, UnicodeDecodeError, ServiceError):  # no form: no token, the post is refused as such
        return {}
