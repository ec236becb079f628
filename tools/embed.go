// Package tools embeds render_jinja.py, the Python helper that renders
// requests with a chat template the way Hugging Face's apply_chat_template
// does (same Jinja environment, same {% generation %} span tracking).
//
// The helper needs only Python 3 and Jinja2 (Debian: python3-jinja2). The
// differential test and `beamharmony verify` write it to a temporary file
// and run it with python3.
package tools

import _ "embed"

// RenderJinjaPy is the source of render_jinja.py.
//
//go:embed render_jinja.py
var RenderJinjaPy string
