"""Online play with a friend, end to end: two or three Chromium contexts against ``kingme serve``."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_a_friend_joins_by_the_invite_link_and_moves_reach_both_players_and_a_spectator(players):
    host, friend, watcher = players(), players(animated=True), players(animated=True)
    link = host.create(side="red")
    expect(host.connected("white")).to_have_attribute("data-connected", "false")
    expect(host.hook("status")).to_have_text("Waiting for your friend to open the invite link.")
    host.screenshot("online-waiting")

    friend.open_link(link)
    expect(friend.hook("status")).to_contain_text("Red to move")
    expect(host.connected("white")).to_have_attribute("data-connected", "true")
    expect(friend.connected("black")).to_have_attribute("data-connected", "true")
    watcher.open_link(link)
    expect(host.hook("spectators")).to_have_text("1")
    expect(watcher.page.locator("#board [data-movable=true]")).to_have_count(0)
    expect(watcher.hook("undo-request")).to_be_hidden()
    expect(watcher.hook("resign")).to_be_hidden()
    expect(watcher.hook("score")).to_have_text("Player 1 0 · Player 2 0 · Draws 0")
    expect(host.hook("resign")).to_be_visible()

    host.move()
    friend.wait_for_history(1)
    expect(friend.page.locator("#board [data-movable=true]").first).to_be_visible()
    expect(host.page.locator("#board [data-movable=true]")).to_have_count(0)
    friend.move()
    host.wait_for_history(2)
    watcher.wait_for_history(2)
    watcher.screenshot("online-spectator")
    assert host.history() == friend.history() == watcher.history()
    assert host.history()[0].startswith("Red") and host.history()[1].startswith("White")


def test_a_refresh_mid_game_keeps_the_seat_and_the_position_and_a_dropped_player_shows_as_away(players):
    host, friend = players(), players()
    link = host.create(side="white")
    friend.open_link(link)
    friend.move()  # the friend has Red: Red moves first
    host.move()
    friend.wait_for_history(2)
    position = friend.position()
    assert len(position) == 24

    friend.page.reload()
    friend.page.wait_for_selector("html[data-ready=true]")
    friend.wait_for_history(2)
    friend.wait_for_position(position)
    assert friend.position() == position
    friend.move()
    host.wait_for_history(3)

    host.page.goto("about:blank")
    expect(friend.connected("white")).to_have_attribute("data-connected", "false")
    expect(friend.connected("white")).to_have_text("away")
    host.open_link(link)
    expect(friend.connected("white")).to_have_attribute("data-connected", "true")
    host.wait_for_history(3)
    host.move()
    friend.wait_for_history(4)


def test_an_undo_request_is_declined_then_accepted_and_a_draw_offer_is_declined_then_accepted(players):
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    host.move()
    friend.wait_for_history(1)

    host.hook("undo-request").click()
    expect(friend.hook("online-notice")).to_have_text("Your friend asks to undo their last move.")
    friend.hook("undo-decline").click()
    expect(host.hook("online-notice")).to_have_text("White refused the undo.")
    expect(friend.hook("undo-accept")).to_be_hidden()
    assert len(host.history()) == 1

    host.hook("undo-request").click()
    friend.hook("undo-accept").click()
    host.wait_for_history(0)
    friend.wait_for_history(0)
    host.move()
    friend.wait_for_history(1)

    friend.hook("draw-offer").click()
    expect(host.hook("online-notice")).to_have_text("Your friend offers a draw.")
    host.hook("draw-decline").click()
    expect(friend.hook("online-notice")).to_have_text("Red declined the draw.")
    friend.move()
    host.wait_for_history(2)
    host.hook("draw-offer").click()
    friend.hook("draw-accept").click()
    for player in (host, friend):
        expect(player.hook("result")).to_have_text("Draw")
        expect(player.hook("result-reason")).to_have_text("The players agreed to a draw.")
        expect(player.hook("score")).to_have_text("You 0 · Friend 0 · Draws 1")


def test_resign_asks_once_more_and_play_again_switches_sides_and_carries_the_score(players):
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    host.move()
    friend.wait_for_history(1)

    host.hook("resign").click()
    host.hook("cancel").click()
    expect(host.hook("result")).to_be_hidden()
    host.resign()
    for player in (host, friend):
        expect(player.hook("result")).to_have_text("White wins")
        expect(player.hook("result-reason")).to_have_text("Red resigned.")
    expect(host.hook("score")).to_have_text("You 0 · Friend 1 · Draws 0")
    expect(friend.hook("score")).to_have_text("You 1 · Friend 0 · Draws 0")
    host.hook("play-again").click()
    expect(host.hook("play-again")).to_be_disabled()
    expect(friend.hook("online-notice")).to_have_text("Red wants to play again.")
    friend.screenshot("online-result", full_page=True)
    friend.hook("play-again").click()
    for player in (host, friend):
        expect(player.hook("result")).to_be_hidden()
        player.wait_for_history(0)
    # The friend, who won with White, now has Red and moves first: the score stays with the players.
    expect(friend.hook("online-role")).to_have_text("You play Red.")
    expect(host.hook("score")).to_have_text("You 0 · Friend 1 · Draws 0")
    expect(friend.hook("score")).to_have_text("You 1 · Friend 0 · Draws 0")
    friend.move()
    host.wait_for_history(1)

    friend.resign()
    host.hook("keep-sides").click()
    host.hook("play-again").click()
    friend.hook("play-again").click()
    host.wait_for_history(0)
    expect(host.hook("online-role")).to_have_text("You play White.")
    expect(host.hook("score")).to_have_text("You 1 · Friend 1 · Draws 0")


def test_an_unknown_or_expired_room_link_says_so_plainly(players):
    visitor = players()
    visitor.open_link(f"{visitor.url}/room/no-such-room-0123456789")
    expect(visitor.hook("error")).to_have_text(re.compile("This game link is unknown"))
    expect(visitor.hook("invite-link")).to_be_hidden()
    expect(visitor.hook("status")).to_have_text("Choose your match, then select Start match.")

    # The server answers 410 for a room 30 days without a move (stood in for here).
    gone = '{"error": "this room has expired", "code": "expired"}'
    visitor.page.route("**/api/rooms/old-room-0123456789", lambda route: route.fulfill(status=410, body=gone))
    visitor.open_link(f"{visitor.url}/?room=old-room-0123456789")
    expect(visitor.hook("error")).to_have_text(re.compile("This game link has expired"))


@pytest.mark.parametrize(
    ("code", "sentence"),
    [
        ("too_many_rooms", "Too many games created from this address."),
        ("too_many_connections", "Too many connections from this address."),
    ],
)
def test_a_room_that_cannot_be_created_says_why_by_the_servers_code(players, code, sentence):
    host = players()
    refused = json.dumps({"error": "refused", "code": code})  # both are HTTP 429: the code tells them apart
    host.page.route("**/api/rooms", lambda route: route.fulfill(status=429, body=refused))
    host.open_setup()
    host.hook("opponent").select_option("online")
    host.hook("start").click()  # no game starts: the room was refused
    expect(host.hook("error")).to_have_text(re.compile(re.escape(sentence)))
    expect(host.hook("invite-link")).to_be_hidden()


def test_a_room_link_carrying_markup_is_not_followed_and_nothing_is_inserted_as_html(players):
    visitor = players()
    dialogs = []
    visitor.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    visitor.open_link(f"{visitor.url}/?room=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    expect(visitor.hook("status")).to_have_text("Choose your match, then select Start match.")
    assert visitor.page.locator("img").count() == 0
    assert dialogs == []


def test_the_room_looks_right_on_a_phone_and_a_desktop(players):
    phone = players(phone=True)
    phone.create()
    expect(phone.hook("invite-link")).to_be_in_viewport()  # the one thing to do is in view
    host, friend = players(), players(phone=True)
    friend.open_link(host.create(side="red"))
    host.move()
    friend.wait_for_history(1)
    expect(friend.connected("black")).to_have_attribute("data-connected", "true")
    host.screenshot("online-desktop")
    friend.screenshot("online-phone")
    friend.screenshot("online-phone-full", full_page=True)


def test_a_click_counts_when_the_board_is_redrawn_between_its_press_and_its_release(players):
    """News from the room (here: the friend leaving) redraws the board at any moment, also while
    the player's button is down on a piece; the click still picks the piece up."""
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    expect(host.connected("white")).to_have_attribute("data-connected", "true")
    start = host.movable()[0]
    host.square(start).locator("[data-piece]").evaluate("piece => { piece.dataset.drawnBefore = 'yes'; }")
    box = host.square(start).bounding_box()
    host.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    host.page.mouse.down()
    friend.page.close()
    expect(host.connected("white")).to_have_attribute("data-connected", "false")
    expect(host.page.locator("[data-drawn-before]")).to_have_count(0)  # the piece was drawn anew
    host.page.mouse.up()
    expect(host.page.locator("#board [data-target=true]")).not_to_have_count(0)


def test_a_dropped_connection_reconnects_by_itself_and_catches_up_on_what_it_missed(players):
    host, friend = players(), players()
    sockets = []
    held = []  # a reconnection kept waiting, to see the page say so

    def through(route: object) -> None:
        if len(sockets) == 1 and not held:
            held.append(route)
            return
        route.connect_to_server()
        sockets.append(route)

    friend.page.route_web_socket(re.compile(r"/ws/rooms/"), through)
    friend.open_link(host.create(side="red"))
    host.move()
    friend.wait_for_history(1)
    friend.move()
    host.wait_for_history(2)

    sockets[-1].close(code=4000, reason="network trouble")
    expect(friend.connected("white")).to_have_text("reconnecting…")
    expect(friend.connected("white")).to_have_attribute("data-connected", "false")
    for _ in range(600):  # the page tries again after a short back-off: wait for that attempt
        if held:
            break
        friend.page.wait_for_timeout(25)  # lets Playwright run the route handler
    held[0].close(code=4000, reason="still no network")
    host.move()
    friend.wait_for_history(3)
    expect(friend.connected("white")).to_have_text("online")
    assert len(sockets) >= 2  # the page opened a new connection by itself
    assert friend.history() == host.history()
    friend.move()
    host.wait_for_history(4)


def test_a_friend_whose_network_drops_shows_reconnecting_to_the_host_then_online_again(players):
    # No close reaches the server when a network drops: its probes go unanswered instead, and
    # the seat says so within seconds (hub.SILENT_SECONDS), not after the 40 s keepalive.
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    expect(host.connected("white")).to_have_text("online")
    friend.page.context.set_offline(True)
    expect(host.connected("white")).to_have_text("reconnecting…")
    expect(host.connected("white")).to_have_attribute("data-connected", "false")
    expect(friend.connected("white")).to_have_text("reconnecting…")  # and so does the friend's own page
    friend.page.context.set_offline(False)
    expect(host.connected("white")).to_have_text("online")
    expect(host.connected("white")).to_have_attribute("data-connected", "true")
    expect(friend.connected("white")).to_have_text("online")
    host.move()
    friend.wait_for_history(1)


def test_a_browser_that_says_it_is_offline_while_its_connection_works_plays_on(players):
    # A browser with no network at all says it is offline, yet its socket to a server on the
    # same machine works: the seat believes the server's answer to a ping over the browser's word.
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    expect(friend.connected("white")).to_have_text("online")
    friend.page.evaluate("window.dispatchEvent(new Event('offline'))")
    expect(friend.connected("white")).to_have_text("online")
    host.move()
    friend.wait_for_history(1)
    friend.move()
    host.wait_for_history(2)


def test_a_connection_whose_pings_go_unanswered_is_given_up_and_opened_again(players):
    # A connection dropped half-open delivers no close; the page notices when a ping is still
    # unanswered as the next falls due, and opens a new one.
    host, friend = players(), players()
    friend.page.clock.install()  # the page's ping timer, run forward below instead of waited for
    sockets = []

    def without_pings(route: object) -> None:
        server = route.connect_to_server()
        route.on_message(lambda message: None if '"ping"' in str(message) else server.send(message))
        sockets.append(route)

    friend.page.route_web_socket(re.compile(r"/ws/rooms/"), without_pings)
    friend.open_link(host.create(side="red"))
    expect(friend.connected("white")).to_have_text("online")
    friend.page.clock.run_for(60_000)  # two pings fall due, the first still unanswered
    for _ in range(600):
        if len(sockets) > 1:
            break
        friend.page.wait_for_timeout(25)  # lets Playwright run the route handler
    assert len(sockets) > 1  # the page opened a new connection by itself
    expect(friend.connected("white")).to_have_text("online")
    host.move()
    friend.wait_for_history(1)


def test_a_refused_move_shows_an_error_to_its_sender_alone_and_changes_nothing(players):
    host, friend = players(), players()
    to_server = []

    def through(route: object) -> None:
        to_server.append(route.connect_to_server())

    friend.page.route_web_socket(re.compile(r"/ws/rooms/"), through)
    friend.open_link(host.create(side="red"))
    host.move()
    friend.wait_for_history(1)

    to_server[-1].send('{"type": "move", "id": "sneaky-1", "move": "1-5"}')  # as if the friend's page sent it
    expect(friend.hook("error")).to_have_text("That move is not allowed here.")
    expect(host.hook("error")).to_be_hidden()
    assert len(host.history()) == len(friend.history()) == 1
    friend.move()  # the page goes on as before
    host.wait_for_history(2)


def test_copy_link_puts_the_invite_link_on_the_clipboard_or_selects_it(players):
    host = players()
    host.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    link = host.create()
    host.hook("copy-link").click()
    expect(host.hook("copy-link")).to_have_text("Copied")
    assert host.page.evaluate("navigator.clipboard.readText()") == link

    host.page.evaluate("Object.defineProperty(navigator, 'clipboard', { value: undefined })")
    host.hook("copy-link").click()
    expect(host.hook("copy-link")).to_have_text(re.compile("Copied|Select the link and copy it"))
    selected = host.hook("invite-link").evaluate("input => input.value.slice(input.selectionStart, input.selectionEnd)")
    assert selected == link


def test_colour_names_follow_the_chosen_piece_theme(players):
    host, friend = players(), players()
    friend.hook("open-settings").click()
    friend.hook("piece-theme").select_option("black-white")
    friend.page.keyboard.press("Escape")
    friend.open_link(host.create(side="white"))
    expect(friend.hook("online-role")).to_have_text("You play Black.")
    expect(host.hook("status")).to_have_text("Red to move. Waiting for your friend.")


def test_a_game_on_this_device_leaves_the_room_and_the_room_link_brings_the_seat_back(players):
    host, friend = players(), players()
    link = host.create(side="red")
    friend.open_link(link)
    host.move()
    friend.wait_for_history(1)

    host.open_setup()
    for name, value in (("opponent", "local"), ("side", "red"), ("position", "standard")):
        host.hook(name).select_option(value)
    host.hook("start").click()
    host.start_by(host.hook("confirm").click)  # leaving the room is asked first
    expect(host.hook("invite-link")).to_be_hidden()
    expect(host.hook("undo")).to_be_visible()
    assert host.page.url == f"{host.url}/"
    expect(friend.connected("black")).to_have_attribute("data-connected", "false")

    host.open_link(link)
    host.wait_for_history(1)
    expect(host.hook("online-role")).to_have_text("You play Red.")
    expect(friend.connected("black")).to_have_attribute("data-connected", "true")
    friend.move()
    host.wait_for_history(2)


def test_an_event_that_leaves_the_position_as_it_was_keeps_the_piece_the_player_has_picked(players):
    # A friend joining, offering a draw or asking to undo changes the room, not the board: the
    # piece picked meanwhile stays picked and the move is finished with one more click.
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    expect(host.connected("white")).to_have_attribute("data-connected", "true")
    expect(host.page.locator("#board [data-movable=true]").first).to_be_visible()
    host.click(host.movable()[0])
    targets = host.targets()
    assert targets

    friend.hook("draw-offer").click()
    expect(host.hook("online-notice")).to_have_text("Your friend offers a draw.")
    assert host.targets() == targets
    host.click(targets[0])
    friend.wait_for_history(1)
    assert friend.history() == host.history()


def test_a_move_lost_on_the_way_to_a_page_reaches_it_by_the_next_event_at_the_latest(players):
    # The page asks for the state again when an event skips a number; the server may also catch
    # the page up on its own first (a welcome), so the moment the lost move shows is not fixed:
    # only that it shows, with the event after it, is.
    host, friend = players(), players()
    drop_next_move = []

    def through(route: object) -> None:
        server = route.connect_to_server()

        def forward(message: str) -> None:
            event = json.loads(message)
            if drop_next_move and event.get("type") == "event" and event.get("kind") == "move":
                drop_next_move.clear()  # this one is lost on the way
                return
            route.send(message)

        server.on_message(forward)

    friend.page.route_web_socket(re.compile(r"/ws/rooms/"), through)
    friend.open_link(host.create(side="red"))
    host.move()
    friend.wait_for_history(1)
    friend.move()
    host.wait_for_history(2)

    drop_next_move.append(True)
    host.move()
    host.wait_for_history(3)
    host.hook("draw-offer").click()  # the next event shows the friend's page what it missed
    friend.wait_for_history(3)
    assert friend.history() == host.history()
    expect(friend.hook("draw-accept")).to_be_visible()


def test_a_friend_who_joins_a_casual_room_by_its_link_sees_that_captures_are_optional(players):
    host, friend = players(), players()
    host.invite(friend, rules="casual")
    expect(friend.hook("status")).to_contain_text("Red to move")
    expect(friend.hook("rules-shown")).to_have_text("Rules Casual · captures optional")
    expect(host.hook("rules-shown")).to_have_text("Rules Casual · captures optional")


def test_nothing_in_a_room_leaves_it_without_asking(players):
    host, friend = players(), players()
    link = host.invite(friend)
    expect(host.hook("import-pdn")).to_be_hidden()  # a pasted game has no place in a room
    host.hook("new-game").click()
    host.hook("start").click()
    expect(host.page.locator("#confirm-title")).to_have_text("Leave this room?")
    host.hook("cancel").click()
    host.hook("setup-cancel").click()
    host.hook("daily-game").click()
    expect(host.page.locator("#confirm-title")).to_have_text("Leave this room?")
    host.hook("cancel").click()
    expect(host.page).to_have_url(link)
    expect(host.hook("invite-link")).to_have_value(link)
    expect(friend.connected("black")).to_have_attribute("data-connected", "true")
    host.move()  # still seated and playing
    friend.wait_for_history(1)
    host.hook("daily-game").click()
    host.start_by(host.hook("confirm").click)
    expect(host.page).to_have_url(host.url + "/daily")
    expect(friend.connected("black")).to_have_attribute("data-connected", "false")


def test_a_room_shows_no_replay_seed(players):
    host, friend = players(), players()
    host.invite(friend)
    expect(friend.hook("status")).to_contain_text("Red to move")
    expect(host.page.locator("#seed-shown")).to_be_hidden()  # the seed chooses nothing in a room
