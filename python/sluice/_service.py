"""Which service this program talks to: SLUICE_URL and SLUICE_API_KEY, or Sieve's SIEVE_API_URL and
SIEVE_API_KEY, read from the environment.

Shared by the HTTP client (sluice._client) and by a File that downloads one of the service's own
URLs (sluice._types, which sends the key there and nowhere else). It imports nothing of the SDK,
so neither of those has to import the other.
"""

from __future__ import annotations

import os
from typing import Dict, Mapping, Optional, Tuple

__all__ = ["DEFAULT_URL", "base_url", "configured", "key_header_for"]

DEFAULT_URL = "http://127.0.0.1:8080"


def base_url(url: str) -> str:
    """The service's address without a trailing slash, nor the ``/v2`` Sieve's variable may end with."""
    url = url.rstrip("/")
    return url[: -len("/v2")] if url.endswith("/v2") else url


def configured(env: Optional[Mapping[str, str]] = None) -> Tuple[str, Optional[str]]:
    """The service's address as the environment gives it (DEFAULT_URL when it gives none) and its API key."""
    env = os.environ if env is None else env
    url = env.get("SLUICE_URL") or env.get("SIEVE_API_URL") or DEFAULT_URL
    return url, env.get("SLUICE_API_KEY") or env.get("SIEVE_API_KEY")


def key_header_for(url: str, env: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The API key header for a URL of the service this program is configured for (an output file
    it serves), so a client reads its outputs as Sieve's do; nothing for any other address."""
    service, api_key = configured(env)
    if api_key and url.startswith(base_url(service) + "/"):
        return {"X-API-Key": api_key}
    return {}
