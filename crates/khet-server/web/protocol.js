// The protocol's messages as the pages meet them (docs/online-protocol.md; their Rust shapes are
// in crates/khet-protocol/src/lib.rs and view.rs). Types only, for `tsc --checkJs`
// (scripts/check-web), and the two checks of a code and a secret the pages share.

/** The protocol version the pages speak (`khet_protocol::VERSION`). */
export const VERSION = 1;

/** @param {unknown} s @returns {s is string} a game's code: 8 characters without i l o 0 1 */
export const isCode = (s) => typeof s === "string" && /^[a-hj-km-np-z2-9]{8}$/.test(s);

/** @param {unknown} s @returns {s is string} a secret: 32 hexadecimal digits */
export const isSecret = (s) => typeof s === "string" && /^[0-9a-f]{32}$/.test(s);

/**
 * A side, as views name it.
 * @typedef {"silver" | "red"} Side
 */
/**
 * A side, as `seat` and `lobby` name it (the engine's `Color`).
 * @typedef {"Silver" | "Red"} Color
 */
/**
 * @typedef {object} ClockSpec A time control.
 * @property {number} initial_ms each side's time at the start
 * @property {number} increment_ms what each move adds
 */
/**
 * @typedef {object} PlayerInfo A player as others see them.
 * @property {string} id
 * @property {string} name
 * @property {number} rating
 * @property {number} deviation a rating is provisional (`?`) above 110
 * @property {number} games rated games finished
 */
/**
 * @typedef {object} OpenGame A game in the lobby, waiting for a second player.
 * @property {string} code
 * @property {string} setup
 * @property {ClockSpec | null} clock
 * @property {boolean} rated
 * @property {PlayerInfo} creator
 * @property {Color | null} joiner_color
 * @property {number} [days_per_move] days a move, for a correspondence game (which stays in the
 *   lobby while its creator is away); left out for a live game
 */
/**
 * @typedef {"open" | "playing" | "over"} Status
 */

// ---- The view of a game (`khet_protocol::view::BoardView`) ------------------------------

/**
 * @typedef {object} PieceView
 * @property {string} sq its square, `e4`
 * @property {[number, number]} at the square's top-left corner in board units
 * @property {Side} color
 * @property {string} kind `pyramid`, `sphinx`, …
 * @property {number} turns quarter turns clockwise from the base drawing
 * @property {number} height 2 for a stack of Obelisks
 * @property {string} label in words
 */
/**
 * @typedef {object} HitView
 * @property {PieceView} piece
 * @property {"removed" | "top_removed" | "pharaoh_lit"} effect
 */
/**
 * @typedef {object} ShotView
 * @property {Side} color whose laser fired
 * @property {[number, number, number, number][]} lines each straight run, in board units
 * @property {HitView[]} hits
 */
/**
 * @typedef {object} ClocksView
 * @property {[number, number]} remaining_ms Silver's and Red's time left when the view was made
 * @property {Side | null} running
 */
/**
 * @typedef {object} LegalMove
 * @property {string} mv the move's text, for `move`
 * @property {string} from
 * @property {string | null} to for a step, swap or unstack
 * @property {"cw" | "ccw" | null} rotate for a turn
 * @property {boolean} unstack only the top Obelisk goes
 */
/**
 * @typedef {object} Presence
 * @property {[boolean, boolean]} connected
 * @property {[number | null, number | null]} gone_ms
 * @property {number} grace_ms
 */
/**
 * @typedef {object} BoardView Everything a page shows of a game, sent whole after each change.
 * @property {number} event
 * @property {string} code
 * @property {string} setup
 * @property {string} edition `2.0` or `1.0`
 * @property {Side | null} you the viewer's side, if they play
 * @property {[string | null, string | null]} players
 * @property {boolean} rated
 * @property {[number, number, Side][]} reserved
 * @property {PieceView[]} pieces
 * @property {string[]} moves
 * @property {Side} turn
 * @property {ShotView | null} shot
 * @property {ClocksView | null} clocks none in a correspondence game
 * @property {number | null} days_per_move days a move, for a correspondence game
 * @property {number | null} deadline_ms when the side to move's days run out (the server's Unix
 *   milliseconds), in a correspondence game being played
 * @property {number | null} left_ms the time the side to move had left of their days when the
 *   view was sent (a page counts down from it, not by its own clock)
 * @property {Status} status
 * @property {string | null} result in words
 * @property {Side | null} draw_offer
 * @property {Side | null} takeback
 * @property {boolean} repetition
 * @property {Presence} presence
 * @property {LegalMove[]} legal the legal moves, for a player of the side to move
 */

// ---- What a page says on /ws (`khet_protocol::ClientMsg`) -------------------------------

/**
 * @typedef {{type: "hello", version: number, identity: string, name: string, views?: boolean}
 *   | ({type: "create"} & NewGame)
 *   | {type: "join", code: string}
 *   | {type: "seek", clock: ClockSpec | null, rated: boolean}
 *   | {type: "lobby"} | {type: "leaderboard"}
 *   | {type: "play", code: string, secret: string, since?: number | null}
 *   | {type: "watch", code: string, since?: number | null}
 *   | {type: "leave"}
 *   | {type: "move", ply: number, mv: string}
 *   | {type: "offer_draw"} | {type: "accept_draw"} | {type: "decline_draw"}
 *   | {type: "claim_repetition"} | {type: "resign"}
 *   | {type: "request_takeback"} | {type: "accept_takeback"} | {type: "decline_takeback"}
 *   | {type: "claim_abandoned", draw: boolean}
 *   | {type: "ping"}
 *   | {type: "my_games"}
 *   | {type: "challenges"}
 *   | {type: "challenge", player: string, game: NewGame}
 *   | {type: "accept_challenge" | "decline_challenge" | "withdraw_challenge", id: string}
 *   | {type: "rematch", code: string}} ClientMsg
 */
/**
 * @typedef {object} NewGame
 * @property {string} setup
 * @property {ClockSpec | null} clock
 * @property {"silver" | "red" | "random"} color
 * @property {boolean} rated
 * @property {boolean} listed
 * @property {number} [days_per_move] days a move (1, 2, 3, 5, 7 or 14) instead of a clock: then
 *   `clock` is null; left out for a live game
 */

// ---- What the server says (`khet_protocol::ServerMsg`) ----------------------------------

/**
 * @typedef {"not_protocol" | "version" | "too_large" | "rate_limited" | "no_hello" | "bad_name"
 *   | "bad_secret" | "unknown_game" | "seat_taken" | "not_your_seat" | "not_playing"
 *   | "not_your_turn" | "stale" | "illegal" | "not_now" | "bad_game" | "storage" | "barred"
 *   | "unknown_player" | "unknown_challenge"} Refusal
 */
/**
 * @typedef {"pending" | "accepted" | "declined" | "withdrawn" | "expired"} ChallengeStatus
 */
/**
 * @typedef {object} ChallengeInfo A challenge as both its players see it.
 * @property {string} id
 * @property {PlayerInfo} from the challenger
 * @property {PlayerInfo} to the challenged player
 * @property {string} setup
 * @property {ClockSpec | null} clock
 * @property {"silver" | "red" | "random"} color the challenger's side
 * @property {boolean} rated
 * @property {string | null} rematch_of the finished game it is a rematch of
 * @property {number} [days_per_move] days a move, for a correspondence game
 * @property {ChallengeStatus} status
 * @property {string | null} game the game an accept created
 */
/**
 * @typedef {{type: "refused", code: Refusal, reason: string}} Refused
 */
/**
 * @typedef {object} MyGame One of the player's games not over (`khet_protocol::MyGame`), as
 *   their list of games shows it.
 * @property {string} code
 * @property {string} setup
 * @property {"open" | "playing"} status
 * @property {Color | null} color the player's side, once known
 * @property {PlayerInfo | null} opponent once there is one
 * @property {boolean} your_turn
 * @property {number} plies moves played
 * @property {boolean} rated
 * @property {ClockSpec | null} clock
 * @property {number | null} days_per_move
 * @property {number | null} deadline_ms when the side to move's days run out (the server's Unix
 *   milliseconds)
 * @property {number | null} left_ms the time left then, when the list was sent
 * @property {string | null} tournament the tournament it is a game of
 */
/**
 * The messages the play page acts on; the rest (`sync`, `event`, `presence`, `pong`) reach it
 * worked out in `view`.
 * @typedef {{type: "welcome", version: number, player: PlayerInfo}
 *   | {type: "seat", code: string, color: Color | null, secret: string}
 *   | {type: "view", view: BoardView}
 *   | {type: "lobby", games: OpenGame[]}
 *   | {type: "leaderboard", players: PlayerInfo[]}
 *   | {type: "challenges", challenges: ChallengeInfo[]}
 *   | {type: "challenge", challenge: ChallengeInfo}
 *   | {type: "my_games", games: MyGame[]}
 *   | Refused
 *   | {type: "sync" | "event" | "presence" | "pong"}} ServerMsg
 */
/**
 * What `/watch/CODE/ws` sends: the game's view after each change, or a refusal.
 * @typedef {BoardView | Refused} WatchFrame
 */
/**
 * A game of `GET /games` (the lobby on `/`).
 * @typedef {object} GameSummary
 * @property {string} code
 * @property {string} setup
 * @property {Status} status
 * @property {boolean} rated
 * @property {ClockSpec | null} clock
 * @property {[string | null, string | null]} players
 * @property {number} plies
 * @property {string | null} result
 * @property {string} created
 */
/**
 * `GET /setups`.
 * @typedef {{setups: {id: string, name: string, edition: string}[], computer: boolean,
 *   game_3d?: boolean, levels?: {id: string, name: string, rating: number}[]}} Offer
 */
