import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from levata.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReplyErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLY_ERROR_CODE_UNSPECIFIED: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_MALFORMED: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_UNKNOWN_MATCH: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_UNKNOWN_REQUEST: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_STALE_VERSION: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_WRONG_SEAT: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_ILLEGAL_ACTION: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_PROTOCOL: _ClassVar[ReplyErrorCode]
    REPLY_ERROR_CODE_SUSPENDED: _ClassVar[ReplyErrorCode]
REPLY_ERROR_CODE_UNSPECIFIED: ReplyErrorCode
REPLY_ERROR_CODE_MALFORMED: ReplyErrorCode
REPLY_ERROR_CODE_UNKNOWN_MATCH: ReplyErrorCode
REPLY_ERROR_CODE_UNKNOWN_REQUEST: ReplyErrorCode
REPLY_ERROR_CODE_STALE_VERSION: ReplyErrorCode
REPLY_ERROR_CODE_WRONG_SEAT: ReplyErrorCode
REPLY_ERROR_CODE_ILLEGAL_ACTION: ReplyErrorCode
REPLY_ERROR_CODE_PROTOCOL: ReplyErrorCode
REPLY_ERROR_CODE_SUSPENDED: ReplyErrorCode

class PlayRequest(_message.Message):
    __slots__ = ("hello", "reply", "replies")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    REPLIES_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    reply: ActionReply
    replies: ReplyBundle
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., reply: _Optional[_Union[ActionReply, _Mapping]] = ..., replies: _Optional[_Union[ReplyBundle, _Mapping]] = ...) -> None: ...

class ReplyBundle(_message.Message):
    __slots__ = ("replies",)
    REPLIES_FIELD_NUMBER: _ClassVar[int]
    replies: _containers.RepeatedCompositeFieldContainer[ActionReply]
    def __init__(self, replies: _Optional[_Iterable[_Union[ActionReply, _Mapping]]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("welcome", "match_start", "event", "request", "applied", "error", "match_end", "bundle")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    BUNDLE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    event: MatchEvent
    request: DecisionRequest
    applied: ActionApplied
    error: ReplyError
    match_end: MatchEnd
    bundle: Bundle
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., event: _Optional[_Union[MatchEvent, _Mapping]] = ..., request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., applied: _Optional[_Union[ActionApplied, _Mapping]] = ..., error: _Optional[_Union[ReplyError, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., bundle: _Optional[_Union[Bundle, _Mapping]] = ...) -> None: ...

class Bundle(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[PlayResponse]
    def __init__(self, messages: _Optional[_Iterable[_Union[PlayResponse, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "name", "protocol_version", "games", "resume_token", "last_seen", "batch_events", "bundle")
    class LastSeenEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    BATCH_EVENTS_FIELD_NUMBER: _ClassVar[int]
    BUNDLE_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    protocol_version: str
    games: _containers.RepeatedScalarFieldContainer[str]
    resume_token: str
    last_seen: _containers.ScalarMap[str, int]
    batch_events: bool
    bundle: bool
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ..., protocol_version: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., resume_token: _Optional[str] = ..., last_seen: _Optional[_Mapping[str, int]] = ..., batch_events: _Optional[bool] = ..., bundle: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_name", "resume_token", "protocol_version", "resumed")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    resume_token: str
    protocol_version: str
    resumed: bool
    def __init__(self, bot_name: _Optional[str] = ..., resume_token: _Optional[str] = ..., protocol_version: _Optional[str] = ..., resumed: _Optional[bool] = ...) -> None: ...

class MatchPolicy(_message.Message):
    __slots__ = ("move_ms", "bank_ms", "startup_ms", "max_strikes", "resume_window_ms")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    STARTUP_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    RESUME_WINDOW_MS_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    startup_ms: int
    max_strikes: int
    resume_window_ms: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., startup_ms: _Optional[int] = ..., max_strikes: _Optional[int] = ..., resume_window_ms: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "seat", "players", "options", "seat_bots", "policy", "label")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_BOTS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat: int
    players: int
    options: _containers.ScalarMap[str, str]
    seat_bots: _containers.RepeatedScalarFieldContainer[str]
    policy: MatchPolicy
    label: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., seat_bots: _Optional[_Iterable[str]] = ..., policy: _Optional[_Union[MatchPolicy, _Mapping]] = ..., label: _Optional[str] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("match_id", "event", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    event: _game_pb2.Event
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "state_version", "seat", "view", "legal", "deadline", "time_left_ms", "bank_left_ms", "realtime", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    REALTIME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    state_version: int
    seat: int
    view: _game_pb2.SeatView
    legal: _containers.RepeatedCompositeFieldContainer[_game_pb2.LegalAction]
    deadline: _timestamp_pb2.Timestamp
    time_left_ms: int
    bank_left_ms: int
    realtime: bool
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., state_version: _Optional[int] = ..., seat: _Optional[int] = ..., view: _Optional[_Union[_game_pb2.SeatView, _Mapping]] = ..., legal: _Optional[_Iterable[_Union[_game_pb2.LegalAction, _Mapping]]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time_left_ms: _Optional[int] = ..., bank_left_ms: _Optional[int] = ..., realtime: _Optional[bool] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("match_id", "request_id", "state_version", "index", "action")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    state_version: int
    index: int
    action: _game_pb2.Action
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., state_version: _Optional[int] = ..., index: _Optional[int] = ..., action: _Optional[_Union[_game_pb2.Action, _Mapping]] = ...) -> None: ...

class ActionApplied(_message.Message):
    __slots__ = ("match_id", "request_id", "seat", "action", "substituted", "strikes", "state_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SUBSTITUTED_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    seat: int
    action: _game_pb2.Action
    substituted: bool
    strikes: int
    state_version: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[_game_pb2.Action, _Mapping]] = ..., substituted: _Optional[bool] = ..., strikes: _Optional[int] = ..., state_version: _Optional[int] = ...) -> None: ...

class ReplyError(_message.Message):
    __slots__ = ("match_id", "request_id", "code", "message")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    code: ReplyErrorCode
    message: str
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., code: _Optional[_Union[ReplyErrorCode, str]] = ..., message: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "result", "events", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    result: _game_pb2.MatchResult
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., seat: _Optional[int] = ...) -> None: ...
