"""A two-process performance_test pair (subscriber process + publisher process) on one RMW.

    ros2 launch launch/perf_pair.launch.py rmw:=rmw_hdds msg:=Array1k rate:=1000 \
        reliability:=BEST_EFFORT runtime:=30

The same perf_test options as bench/ros_compare.py's two-process rows (single-threaded executor,
KEEP_LAST 16); the subscriber writes its JSON log (latencies) to sub_log, the publisher to
pub_log. Both run loopback-only (ROS_LOCALHOST_ONLY=1) unless localhost_only:=0.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, TimerAction
from launch.substitutions import LaunchConfiguration
from launch_ros.substitutions import ExecutableInPackage

ARGS = {
    'rmw': 'rmw_hdds',
    'msg': 'Array1k',
    'rate': '1000',
    'reliability': 'BEST_EFFORT',
    'subs': '1',
    'runtime': '30',
    'warmup': '2',
    'domain': '61',
    'localhost_only': '1',
    'sub_log': 'perf_pair_sub.json',
    'pub_log': 'perf_pair_pub.json',
}


def generate_launch_description():
    c = {name: LaunchConfiguration(name) for name in ARGS}
    common = ['-c', 'rclcpp-single-threaded-executor', '-m', c['msg'], '-r', c['rate'],
              '--reliability', c['reliability'], '--history', 'KEEP_LAST', '--history-depth', '16',
              '--dds-domain_id', c['domain'], '--ignore', c['warmup']]
    env = {'RMW_IMPLEMENTATION': c['rmw'], 'ROS_LOCALHOST_ONLY': c['localhost_only'],
           'ROS_DOMAIN_ID': c['domain']}

    # ExecuteProcess, not launch_ros's Node: perf_test's own option parser rejects --ros-args.
    def perf_test(name, extra):
        executable = ExecutableInPackage('perf_test', 'performance_test')
        return ExecuteProcess(cmd=[executable] + common + extra, name=name, output='screen',
                              additional_env=env)

    sub = perf_test('perf_sub', ['-p', '0', '-s', c['subs'], '--max-runtime', c['runtime'],
                                 '-l', c['sub_log']])
    # The publisher starts a second later (the subscriber's first rows are within its warm-up).
    pub = perf_test('perf_pub', ['-p', '1', '-s', '0', '--max-runtime', c['runtime'],
                                 '-l', c['pub_log']])
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=value) for name, value in ARGS.items()]
        + [sub, TimerAction(period=1.0, actions=[pub])])
