"""Collection rules for the whole repository (tests/, src/ doctests, docs/).

The browser game's ASGI module imports Starlette, which only the ``web`` extra
installs: without it, its doctests are not collected (the rest of
``american_sniff.web`` needs nothing beyond the base install).
"""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("starlette") is None:
    collect_ignore_glob.append("src/american_sniff/web/app.py")
