#!/usr/bin/env python3
"""Render Beam Harmony requests with a chat template, as Hugging Face does.

This is the Python side of the interop check between the Go renderer
(github.com/beamharmony/harmony) and a chat_template.jinja. It sets up Jinja2
the way Transformers' apply_chat_template does (an ImmutableSandboxedEnvironment
with trim_blocks, lstrip_blocks and the loopcontrols extension; a tojson filter
that is json.dumps with ensure_ascii=False; the raise_exception and
strftime_now globals; the {% generation %} tag) and records the character
spans of the generation blocks the way apply_chat_template does for
return_assistant_tokens_mask: a block's start is the length of everything the
template has yielded before it.

A request is the JSON the Go command line reads:

    {"messages": [...], "tools": [...], "add_generation_prompt": true,
     "reasoning_effort": ..., "model_identity": ..., "builtin_tools": [...],
     "allow_missing_thinking": ...}

add_generation_prompt absent or null means true (the request format's
default). The other template arguments are passed only when the request has
them, so the template sees them undefined otherwise.

Usage:

    render_jinja.py --template chat_template.jinja [--spans] [REQUEST.json]
        Render one request (from the file or stdin); print the prompt, or with
        --spans {"prompt": ..., "assistant_spans": [[start, end], ...]}.
        An error raised by the template goes to stderr, exit status 1.

    render_jinja.py --template chat_template.jinja --batch < requests.jsonl
        One request per input line; one JSON result per output line, in order:
        {"prompt": ..., "assistant_spans": [...]} when it renders,
        {"error": MESSAGE} when the template calls raise_exception(MESSAGE),
        {"exception": "Type: message"} for any other failure.

Needs Python 3 and Jinja2 3.1 or later (Debian: python3-jinja2); nothing else.
"""

import argparse
import json
import sys
from contextlib import contextmanager
from datetime import datetime

try:
    import jinja2
    import jinja2.ext
    import jinja2.nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment
except ImportError as exc:  # reported to the caller, which decides whether to skip
    sys.stderr.write("render_jinja.py: Jinja2 is not installed: %s\n" % exc)
    sys.exit(3)

EXIT_NO_JINJA = 3


class GenerationTracker(jinja2.ext.Extension):
    """The {% generation %} ... {% endgeneration %} tag.

    Rendering the body returns it unchanged. While tracking is on, each block
    also records (start, end) in characters of the rendered prompt, where
    start is the total length of the chunks the template has yielded so far.
    Like Transformers, it records only once something has been yielded or
    recorded, so a block at the very start of a template is not tracked.
    """

    tags = {"generation"}

    def __init__(self, environment):
        super().__init__(environment)
        self._chunks = None
        self._spans = None
        environment.extend(track_generation=self.track)

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        call = self.call_method("_render_block")
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _render_block(self, caller):
        text = caller()
        if self._chunks or self._spans:
            start = sum(len(chunk) for chunk in self._chunks)
            self._spans.append((start, start + len(text)))
        return text

    @contextmanager
    def track(self, chunks, spans):
        """Record spans into spans while the caller appends yielded chunks to chunks."""
        if self._chunks is not None:
            raise RuntimeError("generation tracking is already on")
        self._chunks, self._spans = chunks, spans
        try:
            yield
        finally:
            self._chunks, self._spans = None, None


def _raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def _tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # Jinja's own tojson escapes <, >, & and ' for HTML; chat templates want plain JSON.
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent,
                      separators=separators, sort_keys=sort_keys)


def _strftime_now(fmt):
    return datetime.now().strftime(fmt)


def compile_template(source):
    """Compile a chat template in an environment configured as Transformers configures it."""
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[GenerationTracker, jinja2.ext.loopcontrols],
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env.from_string(source)


TEMPLATE_ARGUMENTS = ("reasoning_effort", "model_identity", "builtin_tools", "allow_missing_thinking")


def render(template, request):
    """Render one request; return (prompt, spans) or raise what the template raises."""
    if not isinstance(request, dict):
        raise ValueError("request: must be a JSON object with \"messages\"")
    tools = request.get("tools")
    if tools is not None:
        # apply_chat_template accepts dicts (JSON schemas) and functions only.
        for tool in tools:
            if not isinstance(tool, dict):
                raise ValueError("tools: apply_chat_template takes JSON schema dicts or functions, got %s"
                                 % type(tool).__name__)
        tools = list(tools)
    add_generation_prompt = request.get("add_generation_prompt")
    if add_generation_prompt is None:
        add_generation_prompt = True
    kwargs = {key: request[key] for key in TEMPLATE_ARGUMENTS if key in request}
    chunks, spans = [], []
    with template.environment.track_generation(chunks, spans):
        for chunk in template.generate(messages=request.get("messages"), tools=tools, documents=None,
                                       add_generation_prompt=add_generation_prompt, **kwargs):
            chunks.append(chunk)
    return "".join(chunks), spans


def render_result(template, request):
    """Render one request into the batch result object."""
    try:
        prompt, spans = render(template, request)
    except jinja2.exceptions.TemplateError as exc:
        if type(exc) is jinja2.exceptions.TemplateError:  # raise_exception(message)
            return {"error": exc.message or ""}
        return {"exception": "%s: %s" % (type(exc).__name__, exc)}
    except Exception as exc:  # anything else the template or Jinja raises
        return {"exception": "%s: %s" % (type(exc).__name__, exc)}
    try:
        # A lone surrogate from a "\ud800" escape survives json.loads and
        # rendering, but no UTF-8 writer or tokenizer takes it.
        prompt.encode("utf-8")
    except UnicodeEncodeError as exc:
        return {"exception": "UnicodeEncodeError: the prompt has a lone surrogate: %s" % exc}
    return {"prompt": prompt, "assistant_spans": [list(span) for span in spans]}


def run_batch(template, stdin, stdout):
    for line in stdin.read().split(b"\n"):
        if not line.strip():
            continue
        try:
            request = json.loads(line.decode("utf-8"))
        except ValueError as exc:
            result = {"exception": "request: %s" % exc}
        else:
            result = render_result(template, request)
        stdout.write(json.dumps(result, ensure_ascii=True).encode("ascii") + b"\n")
    stdout.flush()


def main(argv):
    parser = argparse.ArgumentParser(description="Render Beam Harmony requests with a chat template "
                                                 "as Hugging Face's apply_chat_template does.")
    parser.add_argument("--template", required=True, help="the chat_template.jinja to render with")
    parser.add_argument("--batch", action="store_true", help="read JSON lines from stdin, write one result per line")
    parser.add_argument("--spans", action="store_true", help="print the prompt and its assistant spans as JSON")
    parser.add_argument("request", nargs="?", help="a request JSON file (default: stdin)")
    args = parser.parse_args(argv)
    with open(args.template, encoding="utf-8") as f:
        template = compile_template(f.read())
    if args.batch:
        run_batch(template, sys.stdin.buffer, sys.stdout.buffer)
        return 0
    if args.request and args.request != "-":
        with open(args.request, "rb") as f:
            data = f.read()
    else:
        data = sys.stdin.buffer.read()
    result = render_result(template, json.loads(data.decode("utf-8")))
    if "prompt" not in result:
        sys.stderr.write("render_jinja.py: %s\n" % result.get("error", result.get("exception")))
        return 1
    if args.spans:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result["prompt"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
