"""hello: the smallest useful Sluice function.

Deploy it and call it straight away: it needs no pip packages and no GPU.

    npx sluice deploy examples/hello
"""

import sluice


# The decorator is everything the service needs to know about the function. The inputs
# ("name" and "excited") and the output type come from the signature below.
@sluice.function(
    name="hello",
    title="Hello",
    description="Greets someone by name. A first function to deploy and call.",
    tags=["example"],
    readme=(
        "# hello\n\n"
        "Returns a greeting for `name`. Set `excited` to end it with an exclamation mark.\n\n"
        "```sh\n"
        "curl -X POST $SLUICE_URL/v2/push -H \"X-API-Key: $SLUICE_API_KEY\" \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        "  -d '{\"function\": \"local/hello\", \"inputs\": {\"name\": \"Ada\"}}'\n"
        "```\n"
    ),
)
def hello(name: str, excited: bool = False) -> str:
    """Greet someone.

    :param name: who to greet
    :param excited: end with "!" instead of "."
    :return: the greeting
    """
    return f"Hello, {name}{'!' if excited else '.'}"


if __name__ == "__main__":
    # The decorator returns the function unchanged, so it also runs as plain Python.
    print(hello("Ada", excited=True))
