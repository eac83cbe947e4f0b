"""stream-words: a function whose outputs stream, one per word.

Because the function yields instead of returning, each word becomes a separate output
that a client can read while the job is still running.

    npx sluice deploy examples/stream-words
"""

from typing import Iterator

import sluice


@sluice.function(
    name="stream-words",
    title="Stream words",
    description="Splits a text into words and streams them back one at a time.",
    tags=["example", "streaming"],
    readme="# stream-words\n\nYields each whitespace-separated word of `text` as its own output.\n",
)
def stream_words(text: str) -> Iterator[str]:
    """Stream the words of a text.

    :param text: the text to split into words
    :return: one word per output
    """
    for word in text.split():
        yield word


if __name__ == "__main__":
    # Runs locally without a service: iterate like any generator.
    print(list(stream_words("the quick brown fox")))
