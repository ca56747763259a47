"""`cmem review`: the web page where a person decides disputes and promotions.

app (the Starlette app and its views over the Agent facade), guard (the Host
names, the access token and CSRF), server (binding and serving with uvicorn),
templates/ (Jinja2).
"""

from .app import build_app
from .server import ReviewServer, check_bind, page_hosts

__all__ = ["build_app", "ReviewServer", "check_bind", "page_hosts"]
