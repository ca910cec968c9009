import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from levata.v1 import arena_pb2 as _arena_pb2
from levata.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_WAITING: _ClassVar[MatchStatus]
    MATCH_STATUS_RUNNING: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]
    MATCH_STATUS_ABORTED: _ClassVar[MatchStatus]
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_WAITING: MatchStatus
MATCH_STATUS_RUNNING: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus
MATCH_STATUS_ABORTED: MatchStatus

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "rotate", "registered_only")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROTATE_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_ONLY_FIELD_NUMBER: _ClassVar[int]
    name: str
    rotate: bool
    registered_only: bool
    def __init__(self, name: _Optional[str] = ..., rotate: _Optional[bool] = ..., registered_only: _Optional[bool] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "players", "options", "seed", "seat_bots", "policy", "label")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_BOTS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    options: _containers.ScalarMap[str, str]
    seed: int
    seat_bots: _containers.RepeatedScalarFieldContainer[str]
    policy: _arena_pb2.MatchPolicy
    label: str
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., seat_bots: _Optional[_Iterable[str]] = ..., policy: _Optional[_Union[_arena_pb2.MatchPolicy, _Mapping]] = ..., label: _Optional[str] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class MatchInfo(_message.Message):
    __slots__ = ("match_id", "game", "players", "options", "seed", "seat_bots", "status", "result", "created_at", "strikes", "policy", "status_detail")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_BOTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    STATUS_DETAIL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    players: int
    options: _containers.ScalarMap[str, str]
    seed: int
    seat_bots: _containers.RepeatedScalarFieldContainer[str]
    status: MatchStatus
    result: _game_pb2.MatchResult
    created_at: _timestamp_pb2.Timestamp
    strikes: _containers.RepeatedScalarFieldContainer[int]
    policy: _arena_pb2.MatchPolicy
    status_detail: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., players: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., seat_bots: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., strikes: _Optional[_Iterable[int]] = ..., policy: _Optional[_Union[_arena_pb2.MatchPolicy, _Mapping]] = ..., status_detail: _Optional[str] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("status", "limit", "page_token")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    status: MatchStatus
    limit: int
    page_token: str
    def __init__(self, status: _Optional[_Union[MatchStatus, str]] = ..., limit: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchInfo]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "after_seq", "table_every_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    TABLE_EVERY_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_seq: int
    table_every_ms: int
    def __init__(self, match_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., table_every_ms: _Optional[int] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("event", "finished", "table")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    event: _game_pb2.Event
    finished: MatchInfo
    table: PublicTable
    def __init__(self, event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ..., finished: _Optional[_Union[MatchInfo, _Mapping]] = ..., table: _Optional[_Union[PublicTable, _Mapping]] = ...) -> None: ...

class GetHealthRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetHealthResponse(_message.Message):
    __slots__ = ("records_problem", "matches_waiting", "matches_running", "matches_suspended", "bots_connected", "bots_registered", "streams", "watchers", "started_at", "protocol_version")
    RECORDS_PROBLEM_FIELD_NUMBER: _ClassVar[int]
    MATCHES_WAITING_FIELD_NUMBER: _ClassVar[int]
    MATCHES_RUNNING_FIELD_NUMBER: _ClassVar[int]
    MATCHES_SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    BOTS_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    BOTS_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    STREAMS_FIELD_NUMBER: _ClassVar[int]
    WATCHERS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    records_problem: str
    matches_waiting: int
    matches_running: int
    matches_suspended: int
    bots_connected: int
    bots_registered: int
    streams: int
    watchers: int
    started_at: _timestamp_pb2.Timestamp
    protocol_version: str
    def __init__(self, records_problem: _Optional[str] = ..., matches_waiting: _Optional[int] = ..., matches_running: _Optional[int] = ..., matches_suspended: _Optional[int] = ..., bots_connected: _Optional[int] = ..., bots_registered: _Optional[int] = ..., streams: _Optional[int] = ..., watchers: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., protocol_version: _Optional[str] = ...) -> None: ...

class PublicTable(_message.Message):
    __slots__ = ("events", "view", "actions", "status")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    view: _game_pb2.SeatView
    actions: int
    status: MatchStatus
    def __init__(self, events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., view: _Optional[_Union[_game_pb2.SeatView, _Mapping]] = ..., actions: _Optional[int] = ..., status: _Optional[_Union[MatchStatus, str]] = ...) -> None: ...
