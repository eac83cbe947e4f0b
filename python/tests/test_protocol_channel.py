"""The wire protocol's framing (sluice._protocol.Channel): one UTF-8 JSON object a line, on a Unix
stream socket, as shared/runtime/replica.ts writes and reads it. Tested on real socket pairs."""

import json
import os
import socket
import sys
import threading
import time

import pytest

from sluice import _protocol
from sluice._protocol import Channel, ChannelClosed, flush_logs


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    yield Channel(ours), theirs
    ours.close()
    theirs.close()


def test_send_lines_writes_each_object_on_a_line_of_its_own_in_one_write(pair):
    channel, agent = pair
    channel.send_lines('{"type":"output","index":0}', '{"type":"done"}')
    assert agent.recv(1024) == b'{"type":"output","index":0}\n{"type":"done"}\n'


def test_send_lines_encodes_text_as_utf_8(pair):
    channel, agent = pair
    channel.send_lines(json.dumps({"value": "naïve ✓"}, ensure_ascii=False))
    assert json.loads(agent.recv(1024).decode("utf-8")) == {"value": "naïve ✓"}


def test_receive_gives_each_message_in_order_then_none_at_the_end_of_the_stream(pair):
    channel, agent = pair
    agent.sendall(b'{"type":"run","job_id":"a"}\n{"type":"shutdown"}\n')
    agent.shutdown(socket.SHUT_WR)
    assert channel.receive() == {"type": "run", "job_id": "a"}
    assert channel.receive() == {"type": "shutdown"}
    assert channel.receive() is None
    assert channel.receive() is None


def test_a_message_split_across_many_writes_and_larger_than_one_read_arrives_whole(pair):
    channel, agent = pair
    big = {"type": "run", "inputs": {"text": "x" * (3 * _protocol.RECEIVE_BYTES)}}
    data = (json.dumps(big) + "\n").encode()

    def send_in_pieces():
        for start in range(0, len(data), 1000):
            agent.sendall(data[start:start + 1000])

    writer = threading.Thread(target=send_in_pieces)
    writer.start()
    assert channel.receive() == big
    writer.join()


def test_a_last_message_without_its_newline_is_still_read_at_the_end_of_the_stream(pair):
    channel, agent = pair
    agent.sendall(b'{"type":"shutdown"}')
    agent.shutdown(socket.SHUT_WR)
    assert channel.receive() == {"type": "shutdown"}
    assert channel.receive() is None


def test_blank_lines_are_skipped_and_lines_that_are_not_json_objects_are_noted_on_stderr(pair, capsys):
    channel, agent = pair
    agent.sendall(b'\n   \nnot json\n[1, 2]\n"text"\n\xff\xfe\n{"type":"ready"}\n')
    assert channel.receive() == {"type": "ready"}
    notes = capsys.readouterr().err.splitlines()
    assert notes == [
        "sluice runtime: ignored a malformed protocol message: b'not json\\n'",
        "sluice runtime: ignored a malformed protocol message: b'[1, 2]\\n'",
        "sluice runtime: ignored a malformed protocol message: b'\"text\"\\n'",
        "sluice runtime: ignored a malformed protocol message: b'\\xff\\xfe\\n'",
    ]


def test_sending_to_an_agent_that_went_away_raises_channel_closed(pair):
    channel, agent = pair
    agent.close()
    with pytest.raises(ChannelClosed):
        for _ in range(100):  # the first write may still be buffered
            channel.send_lines('{"type":"done"}')


def test_stop_receiving_wakes_a_reader_blocked_in_receive_and_sending_still_works():
    ours, agent = socket.socketpair()
    channel = Channel(ours, poll_before_reading=True)
    got = []
    reader = threading.Thread(target=lambda: got.append(channel.receive()))
    reader.start()
    time.sleep(0.05)
    assert reader.is_alive()
    channel.stop_receiving()
    reader.join(5)
    assert not reader.is_alive() and got == [None]
    channel.send_lines('{"type":"done"}')
    assert agent.recv(100) == b'{"type":"done"}\n'
    channel.close()
    channel.close()  # closing twice is harmless
    agent.close()


def test_a_reader_that_polls_before_reading_gets_the_same_messages():
    ours, theirs = socket.socketpair()
    channel = Channel(ours, poll_before_reading=True)
    theirs.sendall(b'{"type":"call_result","call_id":"1"}\n')
    assert channel.receive() == {"type": "call_result", "call_id": "1"}
    ours.close()
    theirs.close()


def test_send_lines_is_safe_from_many_threads_each_line_whole(pair):
    channel, agent = pair
    payload = "y" * 5000

    def send(n):
        for i in range(20):
            channel.send_lines(json.dumps({"thread": n, "i": i, "payload": payload}))

    threads = [threading.Thread(target=send, args=(n,)) for n in range(4)]
    received = bytearray()
    done = threading.Event()

    def read():
        while len(received.split(b"\n")) <= 80:
            chunk = agent.recv(65536)
            if not chunk:
                break
            received.extend(chunk)
        done.set()

    reader = threading.Thread(target=read)
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.wait(10)
    lines = [json.loads(line) for line in bytes(received).split(b"\n") if line]
    assert len(lines) == 80
    for n in range(4):
        assert [line["i"] for line in lines if line["thread"] == n] == list(range(20))


def test_channel_open_takes_a_descriptor_and_keeps_it_from_the_processes_the_function_starts():
    ours, agent = socket.socketpair()
    fd = os.dup(ours.fileno())
    os.set_inheritable(fd, True)
    channel = Channel.open(fd)
    assert os.get_inheritable(fd) is False
    agent.sendall(b'{"type":"shutdown"}\n')
    assert channel.receive() == {"type": "shutdown"}
    channel.close()
    ours.close()
    agent.close()


def test_flush_logs_survives_closed_or_missing_log_streams(monkeypatch):
    closed = open(os.devnull, "w")
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    monkeypatch.setattr(sys, "stderr", None)
    flush_logs()  # no ValueError from the closed stream, no AttributeError from the missing one
