# chart.svg and chart.png, written by attnzoo; rerun with `gnuplot chart.gp` in this folder.

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart.svg'
set title "Long Range Arena on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "average test accuracy (%): ListOps, Text, Retrieval, Image, Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set label 1 'no model has both an average accuracy and a bench at the longest length yet' at graph 0.5,0.5 center
plot [0:1][0:1] NaN notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart.png'
set title "Long Range Arena on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "average test accuracy (%): ListOps, Text, Retrieval, Image, Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set label 1 'no model has both an average accuracy and a bench at the longest length yet' at graph 0.5,0.5 center
plot [0:1][0:1] NaN notitle

unset output
